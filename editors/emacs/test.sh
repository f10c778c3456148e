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
trap '[ -n "${AGENTLS_TEST_KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
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
# AGENTLS_TEST_PACKAGE_VC_ONLY=1: only the package-vc run below.
if [ -z "${AGENTLS_TEST_PACKAGE_VC_ONLY:-}" ]; then
  run eglot run.el      # through Eglot (agentls-eglot-setup)
  run conn conn.el      # agentls.el's own connection, beside Eglot
fi
# Emacs 30's package-vc installs the package from the repository's URL (a
# repository holding this tree, one commit, stands for it) with :lisp-dir
# "editors/emacs", and its first connection offers to fetch the server from
# a release (a file:// directory laid out as one). Emacs 30 is unpacked by
# e2e/acpclients/install.sh.
emacs30=${AGENTLS_EMACS30:-/opt/agentls-test/emacs-acp}/emacs
if [ ! -x "$emacs30" ]; then
  echo "SKIP emacs package-vc: $emacs30 missing (run e2e/acpclients/install.sh)"
elif [ -z "${AGENTLS_EMACS:-}" ]; then
  d="$tmp/package-vc"
  echo "-- $("$emacs30" --version | head -1), package-vc-install from the repository URL, server fetched on first connection"
  mkdir -p "$d/agentls" "$d/release" "$d/bad" "$d/ws" "$d/home" "$d/out" "$d/state"
  (cd "$repo" && git ls-files -co --exclude-standard -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$d/agentls"
  git -C "$d/agentls" init -q && git -C "$d/agentls" add -A &&
    git -C "$d/agentls" -c user.name=test -c user.email=test@invalid commit -qm snapshot
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  os=$(uname -s | tr A-Z a-z)
  cp "$AGENTLS_BIN" "$d/out/agentls"
  tar -czf "$d/release/agentls_${os}_${arch}.tar.gz" -C "$d/out" agentls && rm "$d/out/agentls"
  (cd "$d/release" && sha256sum "agentls_${os}_${arch}.tar.gz" >checksums.txt)
  cp "$d/release/agentls_${os}_${arch}.tar.gz" "$d/bad/"
  echo "0000000000000000000000000000000000000000000000000000000000000000  agentls_${os}_${arch}.tar.gz" >"$d/bad/checksums.txt"
  printf 'hello world\n' >"$d/ws/hello.txt"
  echo '{}' >"$d/ws/.agentls.json"
  (
    cd "$d/ws" &&
      PATH=/usr/local/bin:/usr/bin:/bin HOME="$d/home" XDG_STATE_HOME="$d/state" AGENTLS_TEST_OUT="$d/out" AGENTLS_TEST_WS="$d/ws" \
        AGENTLS_PACKAGE_SRC="file://$d/agentls" AGENTLS_RELEASE_URL="file://$d/release" AGENTLS_BAD_RELEASE_URL="file://$d/bad" \
        timeout -k 5 150 "$emacs30" --batch -l "$here/test/package-vc.el" </dev/null >"$d/out/emacs.out" 2>&1
  )
  rc=$?
  [ -f "$d/out/results.txt" ] && cat "$d/out/results.txt"
  if [ $rc -ne 0 ] || ! grep -q ' 0 failed' "$d/out/results.txt" 2>/dev/null; then
    status=1
    echo "FAIL: emacs package-vc run exited $rc; its output:"
    tail -40 "$d/out/emacs.out" | sed 's/^/  | /'
  fi
fi
exit $status
