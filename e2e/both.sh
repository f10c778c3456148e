#!/usr/bin/env bash
# Runs the end-to-end suite twice at once, as make test does: in full, and
# again under the race detector with -short (the slow tests the full pass
# just ran skip there). Each pass runs its tests one after another and
# leaves most of a second core idle, so together they take about as long
# as the slower one. Each pass's output is shown whole when both have
# ended, the full pass first; each ends with gotestsum's summary of what
# failed and why.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
"$GO" tool gotestsum --format standard-quiet --format-hide-empty-pkg -- \
  -count=1 -timeout 20m ./e2e >"$logs/full" 2>&1 &
full=$!
"$GO" tool gotestsum --format standard-quiet --format-hide-empty-pkg --hide-summary=skipped -- \
  -race -short -count=1 -timeout 25m ./e2e >"$logs/race" 2>&1 &
race=$!
wait $full
fs=$?
wait $race
rs=$?
echo "== e2e in full (exit $fs)"
cat "$logs/full"
echo "== e2e under -race -short (exit $rs)"
cat "$logs/race"
[ $fs -eq 0 ] || echo "FAIL: e2e in full; its summary is above"
[ $rs -eq 0 ] || echo "FAIL: e2e under -race -short; its summary is above"
[ $fs -eq 0 ] && [ $rs -eq 0 ]
