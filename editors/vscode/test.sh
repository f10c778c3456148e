#!/usr/bin/env bash
# Tests the VS Code extension: unit tests of its pure parts in plain node,
# then the packaged .vsix (with the agentls binary bundled in bin/) installed
# into code-server and driven through headless Chromium against the real
# server and the scripted fake model (test/e2e/run.js).
#
# Uses AGENTLS_BIN and FAKELLM_BIN when set (editors/test.sh sets them),
# otherwise builds both. Missing code-server, Chromium or npm packages is a
# SKIP with the command that installs them. Hard limit: 7 minutes (the
# browser cases 6 of them: 14 cases took 207 s here, on 2 busy cores).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CS_DIR="${AGENTLS_CODE_SERVER_DIR:-/opt/agentls-test/code-server}"
ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
export PATH="/usr/local/go/bin:$PATH"
cd "$HERE"

skip() { echo "SKIP: vscode: $*"; exit 0; }
[ -f "$ENTRY" ] || skip "code-server not installed at $CS_DIR (run editors/vscode/install.sh)"
[ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || skip "Debian's chromium missing (run editors/vscode/install.sh)"
[ -d node_modules/playwright-core ] && [ -d node_modules/vscode-languageclient ] || skip "npm packages missing (run editors/vscode/install.sh)"

WORK="$(mktemp -d /tmp/agentls-vscode.XXXXXX)"
[ -n "${KEEP_WORK:-}" ] && echo "work dir: $WORK (kept)" || trap 'rm -rf "$WORK"' EXIT

if [ -z "${AGENTLS_BIN:-}" ] || [ -z "${FAKELLM_BIN:-}" ]; then
  echo "building agentls and fakellm"
  (cd "$ROOT" && go build -o "$WORK/agentls" ./cmd/agentls && go build -o "$WORK/fakellm" ./cmd/fakellm)
  AGENTLS_BIN="$WORK/agentls" FAKELLM_BIN="$WORK/fakellm"
fi

echo "== tsc and unit tests"
rm -rf out
npx --no-install tsc -p .
node --test --test-reporter=spec out/test/unit/

# AGENTLS_VSIX: a .vsix made elsewhere (CI passes `make dist`'s package for
# this platform, so the release artifact is what runs); otherwise this
# build's server is packaged the way `make vsix` does (package-vsix.sh:
# esbuild's bundle, the server in bin/).
if [ -n "${AGENTLS_VSIX:-}" ]; then
  echo "== the .vsix under test: $AGENTLS_VSIX"
  [ -f "$AGENTLS_VSIX" ] || { echo "FAIL: AGENTLS_VSIX=$AGENTLS_VSIX: no such file"; exit 1; }
  cp "$AGENTLS_VSIX" "$WORK/agentls.vsix"
else
  echo "== package .vsix with the server bundled"
  [ -x node_modules/.bin/esbuild ] || skip "esbuild missing (run editors/vscode/install.sh)"
  timeout 120 ./package-vsix.sh "$AGENTLS_BIN" "$(go env GOOS)" "$(go env GOARCH)" "$WORK/agentls.vsix" >"$WORK/vsce.log" 2>&1 ||
    { cat "$WORK/vsce.log"; echo "FAIL: package-vsix.sh"; exit 1; }
fi
EXT_DIR="$WORK/extensions"
timeout 120 node "$ENTRY" --extensions-dir "$EXT_DIR" --user-data-dir "$WORK/install-user-data" \
  --install-extension "$WORK/agentls.vsix" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log"; echo "FAIL: code-server --install-extension"; exit 1; }
ls "$EXT_DIR"/agentls.agentls-*/bin/agentls >/dev/null ||
  { echo "FAIL: the installed extension has no bin/agentls"; exit 1; }

echo "== code-server $(node -p "require('$CS_DIR/node_modules/code-server/package.json').version") in $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"
ARTIFACTS="$HERE/test-artifacts"
rm -rf "$ARTIFACTS"
mkdir -p "$ARTIFACTS"
CODE_SERVER_ENTRY="$ENTRY" EXTENSIONS_DIR="$EXT_DIR" FAKELLM_BIN="$FAKELLM_BIN" ARTIFACTS_DIR="$ARTIFACTS" WORK_DIR="$WORK" \
  timeout -k 10 360 node test/e2e/run.js || {
    rc=$?
    [ -f "$WORK/probe.jsonl" ] && cp "$WORK/probe.jsonl" "$ARTIFACTS/probe.jsonl"
    [ $rc -eq 124 ] && echo "FAIL: vscode e2e timed out after 360 s"
    echo "artifacts: $ARTIFACTS"
    exit 1
  }
cp "$WORK/probe.jsonl" "$ARTIFACTS/probe.jsonl"
echo "artifacts: $ARTIFACTS"
