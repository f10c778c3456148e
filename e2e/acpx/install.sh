#!/usr/bin/env bash
# Installs acpx, the headless ACP client e2e/acpx_test.go drives agentls with,
# at the versions package-lock.json pins. npm install, not npm ci: acpx's
# @openclaw/fs-safe names platform packages the registry does not serve at
# that version, which npm ci counts as a lock out of sync.
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-audit --no-fund --no-save
