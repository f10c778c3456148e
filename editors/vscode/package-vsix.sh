#!/usr/bin/env bash
# Packages the extension as one platform's .vsix, the way `make vsix` and
# `make dist` (a goreleaser build hook, once per target) call it:
#
#   package-vsix.sh BINARY GOOS GOARCH OUT.vsix [VERSION]
#
# The extension's TypeScript is bundled by esbuild into one file (no
# node_modules in the package: vscode-languageclient is inside the bundle),
# and BINARY goes into bin/agentls (bin/agentls.exe on Windows), which the
# extension prefers to PATH (src/serverPath.ts). The package is made in a
# staging directory of its own, so several targets can be packaged at once.
# VERSION, when it is a release's x.y.z, replaces package.json's version.
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: $0 BINARY GOOS GOARCH OUT.vsix [VERSION]" >&2; exit 2; }
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
goos=$2 goarch=$3 out=$4 version=${5:-}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
HERE="$(cd "$(dirname "$0")" && pwd)"
case "$goos" in
  linux | darwin) os=$goos exe=agentls ;;
  windows) os=win32 exe=agentls.exe ;;
  *) echo "package-vsix: no VS Code target for GOOS $goos" >&2; exit 2 ;;
esac
case "$goarch" in
  amd64) arch=x64 ;;
  arm64) arch=arm64 ;;
  *) echo "package-vsix: no VS Code target for GOARCH $goarch" >&2; exit 2 ;;
esac
[ -f "$bin" ] || { echo "package-vsix: $bin: no such file" >&2; exit 1; }
for t in esbuild vsce; do
  [ -x "$HERE/node_modules/.bin/$t" ] || {
    echo "package-vsix: $t missing: run npm ci in editors/vscode (or editors/vscode/install.sh)" >&2
    exit 1
  }
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/agentls-vsix.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp -r "$HERE/README.md" "$HERE/LICENSE" "$HERE/images" "$stage/"
mkdir -p "$stage/bin" "$stage/out/src"
cp "$bin" "$stage/bin/$exe"
chmod 755 "$stage/bin/$exe"
# The bundle stands where package.json's "main" expects tsc's output.
"$HERE/node_modules/.bin/esbuild" "$HERE/src/extension.ts" --bundle --platform=node --format=cjs \
  --target=node18 --external:vscode --minify --log-level=warning --outfile="$stage/out/src/extension.js"
# package.json without what the bundle made unnecessary: no scripts (vsce
# would run vscode:prepublish's tsc), no dependencies to collect.
node -e '
const fs = require("fs");
const [src, dst, version] = process.argv.slice(1);
const p = JSON.parse(fs.readFileSync(src, "utf8"));
delete p.scripts; delete p.dependencies; delete p.devDependencies;
if (/^\d+\.\d+\.\d+$/.test(version)) p.version = version;
fs.writeFileSync(dst, JSON.stringify(p, null, 2) + "\n");
' "$HERE/package.json" "$stage/package.json" "$version"
printf '%s\n' '**/*.map' >"$stage/.vscodeignore"
mkdir -p "$(dirname "$out")"
(cd "$stage" && "$HERE/node_modules/.bin/vsce" package --no-dependencies --target "$os-$arch" \
  --skip-license --allow-missing-repository -o "$out" >"$stage.log" 2>&1) ||
  { cat "$stage.log" >&2; rm -f "$stage.log"; echo "package-vsix: vsce package failed" >&2; exit 1; }
rm -f "$stage.log"
echo "package-vsix: $out ($os-$arch)"
