#!/usr/bin/env bash
# Installs TypeScript's compiler for internal/verify's TscCheck test
# (TestTscCheckFindsATypeErrorTwoImportsAway).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
