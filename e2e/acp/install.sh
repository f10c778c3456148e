#!/usr/bin/env bash
# Installs the ACP TypeScript SDK the node e2e client uses (e2e/acp_node_test.go).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
