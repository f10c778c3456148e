#!/usr/bin/env bash
# Headless end-to-end test of agentls.el: `emacs --batch` with Debian's
# Eglot drives tasks against the real agentls binary and the fake model
# (test/run.el). Exits non-zero if a check fails; no Emacs or no Eglot is
# a SKIP. AGENTLS_BIN and FAKELLM_BIN default to the repo's bin/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ -z "${AGENTLS_BIN:-}" ] || [ -z "${FAKELLM_BIN:-}" ]; then
  (cd "$repo" && make -s build >/dev/null && go build -o bin/fakellm ./cmd/fakellm) || { echo "FAIL: cannot build agentls"; exit 1; }
  export AGENTLS_BIN="$repo/bin/agentls" FAKELLM_BIN="$repo/bin/fakellm"
fi
emacs=${AGENTLS_EMACS:-emacs}
if ! command -v "$emacs" >/dev/null 2>&1; then
  echo "SKIP emacs: no emacs found (run editors/emacs/install.sh)"
  exit 0
fi
if ! "$emacs" --batch --eval '(require (quote eglot))' >/dev/null 2>&1; then
  echo "SKIP emacs: eglot is not installed (run editors/emacs/install.sh)"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/ws" "$tmp/out" "$tmp/home" "$tmp/state"
printf 'hello world\nsecond line\n' >"$tmp/ws/hello.txt"
printf 'alpha one\n' >"$tmp/ws/a.txt"
printf 'beta two\n' >"$tmp/ws/b.txt"
echo "-- $("$emacs" --version | head -1)"
(
  cd "$tmp/ws" &&
    HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" AGENTLS_TEST_OUT="$tmp/out" AGENTLS_TEST_WS="$tmp/ws" \
      timeout -k 5 100 "$emacs" --batch -l "$here/test/run.el" </dev/null >"$tmp/out/emacs.out" 2>&1
)
rc=$?
[ -f "$tmp/out/results.txt" ] && cat "$tmp/out/results.txt"
status=0
if [ $rc -ne 0 ]; then
  status=1
  [ $rc -eq 124 ] && echo "FAIL: emacs timed out after 100 s"
  echo "FAIL: emacs exited $rc; its output:"
  tail -40 "$tmp/out/emacs.out" | sed 's/^/  | /'
  [ -f "$tmp/out/agentls.log" ] && { echo "  agentls log:"; tail -20 "$tmp/out/agentls.log" | sed 's/^/  | /'; }
elif ! grep -q ' 0 failed' "$tmp/out/results.txt" 2>/dev/null; then
  status=1
  echo "FAIL: emacs gave no result summary"
fi
if [ -n "${AGENTLS_TEST_KEEP:-}" ]; then
  mkdir -p "$AGENTLS_TEST_KEEP" && cp -r "$tmp/out/." "$AGENTLS_TEST_KEEP/"
fi
exit $status
