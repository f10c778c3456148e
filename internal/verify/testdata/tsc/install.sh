#!/usr/bin/env bash
# Installs TypeScript's compiler and the tsx loader (node 20 runs no
# TypeScript alone) for internal/verify's TypeScript tests: the TscCheck
# test, TestJSScopeTypeScriptTestsThroughTsx, and the generated TypeScript
# project of BenchmarkGate and TestScopedRunFailsExactlyWhenTheFullRunFails.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
