#!/usr/bin/env bash
# Checks what `make dist` (goreleaser, snapshot or release) left in dist/:
# an archive per platform holding the server, built as `make build` builds
# it; a .vsix per platform holding the bundled extension and that
# platform's server; checksums.txt covering both, and true; a CycloneDX
# SBOM per binary; editors/mason's entry naming only archives that exist.
# Then this machine's .vsix installs into code-server and its bundled
# server runs (AGENTLS_DIST_NO_CODE_SERVER=1 leaves that out: the release
# workflow has no code-server). `make dist-check` runs it; .ci/run runs it
# after make dist.
# Exits non-zero on the first failed check (each check prints one line).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DIST="${AGENTLS_DIST:-$ROOT/dist}"
CS_DIR="${AGENTLS_CODE_SERVER_DIR:-/opt/agentls-test/code-server}"
ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
export PATH="/usr/local/go/bin:$PATH"
cd "$DIST" 2>/dev/null || { echo "FAIL: $DIST missing: run make dist"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok   $*"; }
fail() { echo "FAIL $*"; exit 1; }

targets="linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64"
host="$(go env GOOS)_$(go env GOARCH)"
want_version=$(cd "$ROOT" && git describe --tags --always --dirty 2>/dev/null)
for t in $targets; do
  os=${t%_*} arch=${t#*_}
  exe=agentls
  if [ "$os" = windows ]; then
    a=agentls_$t.zip exe=agentls.exe
    [ -f "$a" ] || fail "$a missing"
    unzip -q -o "$a" -d "$work/$t" || fail "$a: not a zip"
  else
    a=agentls_$t.tar.gz
    [ -f "$a" ] || fail "$a missing"
    mkdir -p "$work/$t" && tar -xzf "$a" -C "$work/$t" || fail "$a: not a tar.gz"
  fi
  [ -f "$work/$t/$exe" ] && [ -f "$work/$t/README.md" ] || fail "$a holds $(ls "$work/$t" | tr '\n' ' '), not $exe and README.md"
  # Built as `make build` builds: no cgo, -trimpath (go version -m), and
  # its -ldflags (-trimpath keeps them out of the build info): no symbol
  # table (-s; Mach-O keeps its dynamic imports), main.version set to
  # make's VERSION.
  info=$(go version -m "$work/$t/$exe") || fail "$a: go version -m cannot read $exe"
  for s in "GOOS=$os" "GOARCH=$arch" "CGO_ENABLED=0" "-trimpath=true"; do
    grep -qF -- "build	$s" <<<"$info" || fail "$a: $exe was not built with $s: $(grep -F build <<<"$info" | tr '\n' ' ')"
  done
  if [ "$os" != darwin ]; then
    go tool nm "$work/$t/$exe" >/dev/null 2>&1 && fail "$a: $exe has a symbol table (built without -s)"
  fi
  grep -qaF "$want_version" "$work/$t/$exe" || fail "$a: $exe does not carry the version $want_version"
  ok "$a: $exe built for $os/$arch with CGO_ENABLED=0, -trimpath, make build's ldflags (version $want_version)"

  sbom=agentls_$t.cdx.json
  [ -f "$sbom" ] || fail "$sbom missing"
  node -e '
    const b = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const names = (b.components || []).map((c) => c.name);
    if (b.bomFormat !== "CycloneDX") throw new Error("bomFormat " + b.bomFormat);
    for (const m of ["go.lsp.dev/protocol", "go.uber.org/zap"]) if (!names.includes(m)) throw new Error("no component " + m);
  ' "$DIST/$sbom" || fail "$sbom is not a CycloneDX SBOM listing the server's modules"
  ok "$sbom: CycloneDX, lists the modules linked in"

  case "$os" in windows) vos=win32 ;; *) vos=$os ;; esac
  case "$arch" in amd64) varch=x64 ;; *) varch=$arch ;; esac
  v=agentls-$vos-$varch.vsix
  [ -f "$v" ] || fail "$v missing"
  list=$(unzip -Z1 "$v") || fail "$v: not a zip"
  grep -qx "extension/bin/$exe" <<<"$list" || fail "$v holds no extension/bin/$exe"
  grep -qx "extension/out/src/extension.js" <<<"$list" || fail "$v holds no bundled extension.js"
  ! grep -q "^extension/node_modules/" <<<"$list" || fail "$v carries node_modules: the JavaScript is not bundled"
  unzip -p "$v" extension.vsixmanifest | grep -q "TargetPlatform=\"$vos-$varch\"" || fail "$v is not marked for $vos-$varch"
  cmp -s <(unzip -p "$v" "extension/bin/$exe") "$work/$t/$exe" || fail "$v's server differs from $a's"
  ok "$v: the bundled extension (no node_modules), $a's server in bin/, target $vos-$varch"
done

[ -f checksums.txt ] || fail "checksums.txt missing"
for f in agentls_*.tar.gz agentls_*.zip agentls-*.vsix; do
  grep -qE "^[0-9a-f]{64}  $f\$" checksums.txt || fail "checksums.txt has no line for $f"
done
sha256sum --quiet -c checksums.txt || fail "checksums.txt does not match the files"
ok "checksums.txt: a true SHA-256 for each archive and .vsix ($(wc -l <checksums.txt) lines)"

for f in $(sed -n 's/^ *file: *//p' "$ROOT/editors/mason/packages/agentls/package.yaml"); do
  [ -f "$f" ] || fail "editors/mason's entry names $f, which make dist does not make"
done
ok "editors/mason's entry names only archives make dist makes"

# README.md's install line for this machine, run against dist/ as the
# release (file://), into a fresh directory standing for ~/.local/bin.
case "$host" in linux_amd64) label="Linux x86-64" ;; linux_arm64) label="Linux arm64" ;; *) label= ;; esac
if [ -n "$label" ]; then
  line=$(grep -F "# $label" "$ROOT/README.md" | head -1)
  [ -n "$line" ] || fail "README.md has no install line for $label"
  line=${line%%#*}
  line=${line//https:\/\/github.com\/agentls\/agentls\/releases\/latest\/download/file://$DIST}
  line=${line//\~\/.local\/bin/$work/home-bin}
  bash -c "set -o pipefail; $line" || fail "README.md's $label line failed: $line"
  got=$("$work/home-bin/agentls" version) || fail "the agentls README.md's $label line installed does not run"
  ok "README.md's $label line installs a server that runs: $got"
fi

# This machine's .vsix in code-server: installed, its server runs.
case "$host" in linux_amd64) hv=agentls-linux-x64.vsix ;; linux_arm64) hv=agentls-linux-arm64.vsix ;; *) hv= ;; esac
if [ -n "$hv" ] && [ -z "${AGENTLS_DIST_NO_CODE_SERVER:-}" ]; then
  [ -f "$ENTRY" ] || fail "code-server not installed at $CS_DIR (run editors/vscode/install.sh)"
  timeout 120 node "$ENTRY" --extensions-dir "$work/ext" --user-data-dir "$work/user-data" \
    --install-extension "$DIST/$hv" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "code-server --install-extension $hv"; }
  srv=$(ls "$work"/ext/agentls.agentls-*/bin/agentls 2>/dev/null | head -1)
  [ -x "$srv" ] || fail "the installed $hv has no executable bin/agentls"
  got=$("$srv" version) || fail "the installed extension's server does not run"
  grep -qF "$want_version" <<<"$got" || fail "the installed extension's server says $got, not $want_version"
  ok "$hv installs into code-server $(node -p "require('$CS_DIR/node_modules/code-server/package.json').version"); its bin/agentls runs: $got"
fi
echo "dist: $n checks passed"
