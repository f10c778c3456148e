#!/usr/bin/env bash
# Installs acpx, the headless ACP client e2e/acpx_test.go drives agentls with.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
