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
echo "-- $("$emacs" --version | head -1)"
status=0
# run NAME EL: one Emacs run of test/EL in a fresh workspace.
run() {
  local d="$tmp/$1"
  mkdir -p "$d/ws" "$d/out" "$d/home" "$d/state"
  printf 'hello world\nsecond line\n' >"$d/ws/hello.txt"
  printf 'beta two\n' >"$d/ws/b.txt"
  if [ "$1" = conn ]; then
    { echo 'alpha one'; for i in 1 2 3 4 5 6 7 8 9 10; do echo "filler $i"; done; echo 'omega end'; } >"$d/ws/a.txt"
    printf 'gamma three\n' >"$d/ws/c.txt"
    echo '{}' >"$d/ws/.agentls.json"
  else
    printf 'alpha one\n' >"$d/ws/a.txt"
  fi
  (
    cd "$d/ws" &&
      HOME="$d/home" XDG_STATE_HOME="$d/state" AGENTLS_TEST_OUT="$d/out" AGENTLS_TEST_WS="$d/ws" \
        timeout -k 5 100 "$emacs" --batch -l "$here/test/$2" </dev/null >"$d/out/emacs.out" 2>&1
  )
  local rc=$?
  [ -f "$d/out/results.txt" ] && cat "$d/out/results.txt"
  if [ $rc -ne 0 ]; then
    status=1
    [ $rc -eq 124 ] && echo "FAIL: emacs ($2) timed out after 100 s"
    echo "FAIL: emacs ($2) exited $rc; its output:"
    tail -40 "$d/out/emacs.out" | sed 's/^/  | /'
    [ -f "$d/out/agentls.log" ] && { echo "  agentls log:"; tail -20 "$d/out/agentls.log" | sed 's/^/  | /'; }
  elif ! grep -q ' 0 failed' "$d/out/results.txt" 2>/dev/null; then
    status=1
    echo "FAIL: emacs ($2) gave no result summary"
  fi
  if [ -n "${AGENTLS_TEST_KEEP:-}" ]; then
    mkdir -p "$AGENTLS_TEST_KEEP/$1" && cp -r "$d/out/." "$AGENTLS_TEST_KEEP/$1/"
  fi
}
run eglot run.el      # through Eglot (agentls-eglot-setup)
run conn conn.el      # agentls.el's own connection, beside Eglot
exit $status
