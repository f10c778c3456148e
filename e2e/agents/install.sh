#!/usr/bin/env bash
# Installs qwen-code, gemini-cli and claude-code-acp, real ACP agents the bridge's e2e tests drive
# (e2e/bridge_agents_test.go), at the versions package-lock.json pins.
# npm install, not npm ci: a dependency names platform packages the
# registry does not serve, which npm ci counts as a lock out of sync.
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-audit --no-fund --no-save
