#!/usr/bin/env bash
# Installs the real Codex ACP agent (@zed-industries/codex-acp, pinned in
# package-lock.json) that e2e/codex_test.go runs through the LSP-ACP bridge.
# The native binary is the platform package npm picks from the package's
# optionalDependencies; nothing is downloaded from anywhere but the npm
# registry (the package has no install script).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
