#!/usr/bin/env bash
# Runs every editor's tests: editors/<name>/test.sh, each against the real
# agentls binary and the fake model. An editor whose tools are missing on
# this machine says so and is skipped (exit 0 with a SKIP line); any other
# failure fails the whole run. Called by `make editors-test` and `make test`.
set -uo pipefail
cd "$(dirname "$0")/.."
make -s build >/dev/null
go build -o bin/fakellm ./cmd/fakellm
export AGENTLS_BIN="$PWD/bin/agentls" FAKELLM_BIN="$PWD/bin/fakellm"
status=0
for t in editors/*/test.sh; do
  [ -x "$t" ] || continue
  echo "== $t"
  if ! "$t"; then
    echo "FAIL: $t"
    status=1
  fi
done
exit $status
