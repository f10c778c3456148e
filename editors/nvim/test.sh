#!/usr/bin/env bash
# Headless end-to-end test of the Neovim plugin: runs test/run.lua in
# Neovim 0.7.x (Debian 12's package), 0.10.x (Debian 13's, unpacked by
# install.sh) and 0.12.x (Debian's current, unpacked by
# e2e/acpclients/install.sh) against the real agentls binary and the fake model. Exits
# non-zero if any check fails in any version; a missing Neovim is a SKIP.
# AGENTLS_BIN and FAKELLM_BIN default to the repo's bin/ (built if absent).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
if [ -z "${AGENTLS_BIN:-}" ] || [ -z "${FAKELLM_BIN:-}" ]; then
  (cd "$repo" && make -s build >/dev/null && go build -o bin/fakellm ./cmd/fakellm) || { echo "FAIL: cannot build agentls"; exit 1; }
  export AGENTLS_BIN="$repo/bin/agentls" FAKELLM_BIN="$repo/bin/fakellm"
fi

nvims=()
n010=${AGENTLS_NVIM010:-/opt/agentls-test/nvim-0.10}/nvim-0.10
# Debian's current Neovim (0.12), unpacked by e2e/acpclients/install.sh.
n012=${AGENTLS_NVIM_ACP:-/opt/agentls-test/nvim-acp}/nvim
if [ -n "${AGENTLS_TEST_NVIM:-}" ]; then
  nvims=("$AGENTLS_TEST_NVIM") # one Neovim only, e.g. to chase a flaky check
else
  if command -v nvim >/dev/null 2>&1; then nvims+=("$(command -v nvim)"); fi
  if [ -x "$n010" ]; then nvims+=("$n010"); fi
  [ -x "$n010" ] || echo "SKIP nvim-0.10: $n010 missing (run editors/nvim/install.sh)"
  if [ -x "$n012" ]; then nvims+=("$n012"); fi
  [ -x "$n012" ] || echo "SKIP nvim-0.12: $n012 missing (run e2e/acpclients/install.sh)"
fi
if [ ${#nvims[@]} -eq 0 ]; then
  echo "SKIP nvim: no Neovim found (run editors/nvim/install.sh)"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Each Neovim runs the plugin's own start-up; 0.10 and 0.12 also run the
# README's plain vim.lsp.start set-up ("external").
runs=()
for nv in "${nvims[@]}"; do
  runs+=("$nv|auto")
  case "$("$nv" --version | head -1)" in *v0.7.*) ;; *) runs+=("$nv|external") ;; esac
done
# AGENTLS_TEST_PACK_ONLY=1: only the vim.pack run below.
[ -n "${AGENTLS_TEST_PACK_ONLY:-}" ] && runs=()
status=0
i=0
for r in "${runs[@]}"; do
  nv=${r%|*} mode=${r#*|}
  i=$((i + 1))
  run="$tmp/run$i"
  mkdir -p "$run/ws" "$run/out" "$run/home" "$run/state"
  printf 'hello world\nsecond line\n' >"$run/ws/hello.txt"
  printf 'alpha one\n' >"$run/ws/a.txt"
  printf 'beta two\n' >"$run/ws/b.txt"
  echo '{}' >"$run/ws/.agentls.json"
  stream=split external=
  case "$("$nv" --version | head -1)" in *v0.7.*) ;; *) stream=float ;; esac # each window kind somewhere
  if [ "$mode" = external ]; then stream=split external=1; fi
  echo "-- $("$nv" --version | head -1), $mode start-up, stream in a $stream window"
  (
    cd "$run/ws" &&
      HOME="$run/home" XDG_CONFIG_HOME="$run/home/.config" XDG_DATA_HOME="$run/home/.local/share" \
        XDG_STATE_HOME="$run/state" XDG_CACHE_HOME="$run/home/.cache" \
        AGENTLS_TEST_NVIM_BIN="$nv" AGENTLS_TEST_OUT="$run/out" AGENTLS_TEST_WS="$run/ws" AGENTLS_TEST_STREAM=$stream AGENTLS_TEST_EXTERNAL=$external \
        timeout -k 5 150 "$nv" --headless -i NONE -n -u "$here/test/init.lua" \
        -c "lua require('run').main()" </dev/null >"$run/out/nvim.out" 2>&1
  )
  rc=$?
  if [ -f "$run/out/results.txt" ]; then cat "$run/out/results.txt"; fi
  if [ $rc -ne 0 ]; then
    status=1
    [ $rc -eq 124 ] && echo "FAIL: $nv timed out after 150 s"
    echo "FAIL: $nv exited $rc; its output:"
    sed 's/^/  | /' "$run/out/nvim.out" | tail -40
    [ -f "$run/out/agentls.log" ] && { echo "  agentls log:"; tail -20 "$run/out/agentls.log" | sed 's/^/  | /'; }
  elif ! grep -q ' 0 failed' "$run/out/results.txt" 2>/dev/null; then
    status=1
    echo "FAIL: $nv gave no result summary"
  fi
  if [ -n "${AGENTLS_TEST_KEEP:-}" ]; then
    mkdir -p "$AGENTLS_TEST_KEEP/run$i" && cp -r "$run/out/." "$AGENTLS_TEST_KEEP/run$i/"
    find "$run/home" "$run/state" -name lsp.log -exec cp {} "$AGENTLS_TEST_KEEP/run$i/" \;
  fi
done
# Neovim 0.12's vim.pack installs the plugin from the repository's URL: a
# repository holding this tree (tracked and new files, one commit) stands
# for it. Its first start, with agentls not on PATH, offers to download the
# server from the releases; a file:// directory laid out as a release
# (agentls_<os>_<arch>.tar.gz, checksums.txt) stands for them.
if [ -x "$n012" ] && [ -z "${AGENTLS_TEST_NVIM:-}" ]; then
  echo "-- $("$n012" --version | head -1), vim.pack.add from the repository URL, server fetched on first start"
  p="$tmp/pack"
  mkdir -p "$p/agentls" "$p/release" "$p/bad" "$p/ws" "$p/home" "$p/out"
  (cd "$repo" && git ls-files -co --exclude-standard -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$p/agentls"
  git -C "$p/agentls" init -q && git -C "$p/agentls" add -A &&
    git -C "$p/agentls" -c user.name=test -c user.email=test@invalid commit -qm snapshot
  case "$(uname -m)" in x86_64) arch=amd64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  os=$(uname -s | tr A-Z a-z)
  cp "$AGENTLS_BIN" "$p/out/agentls"
  tar -czf "$p/release/agentls_${os}_${arch}.tar.gz" -C "$p/out" agentls
  (cd "$p/release" && sha256sum "agentls_${os}_${arch}.tar.gz" >checksums.txt)
  cp "$p/release/agentls_${os}_${arch}.tar.gz" "$p/bad/"
  echo "0000000000000000000000000000000000000000000000000000000000000000  agentls_${os}_${arch}.tar.gz" >"$p/bad/checksums.txt"
  printf 'hello world\n' >"$p/ws/hello.txt"
  echo '{}' >"$p/ws/.agentls.json"
  (
    cd "$p/ws" &&
      PATH=/usr/local/bin:/usr/bin:/bin HOME="$p/home" XDG_CONFIG_HOME="$p/home/.config" XDG_DATA_HOME="$p/home/.local/share" \
        XDG_STATE_HOME="$p/home/.local/state" XDG_CACHE_HOME="$p/home/.cache" \
        AGENTLS_PACK_SRC="file://$p/agentls" AGENTLS_RELEASE_URL="file://$p/release" AGENTLS_BAD_RELEASE_URL="file://$p/bad" \
        AGENTLS_PACK_WS="$p/ws" AGENTLS_PACK_OUT="$p/out/results.txt" \
        timeout -k 5 120 "$n012" --headless -i NONE -n -u "$here/test/pack.lua" </dev/null >"$p/out/nvim.out" 2>&1
  )
  rc=$?
  [ -f "$p/out/results.txt" ] && cat "$p/out/results.txt"
  if [ $rc -ne 0 ] || [ ! -f "$p/out/results.txt" ]; then
    status=1
    echo "FAIL: vim.pack run exited $rc; its output:"
    sed 's/^/  | /' "$p/out/nvim.out" | tail -40
  fi
fi
exit $status
