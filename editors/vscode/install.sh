#!/usr/bin/env bash
# Installs what editors/vscode/test.sh needs on a fresh Debian 12 machine (as
# root): Debian's Chromium and the build headers code-server's native modules
# want, code-server 4.100.3 (the newest that runs on node 20) in a cache
# directory, and the extension's own npm packages. Idempotent: a second run
# with everything in place only checks and returns.
#
# code-server's postinstall downloads things this machine cannot reach, so it
# is installed with --ignore-scripts and its postinstall steps are done here
# by hand (see shared/notes/editors.md, "VS Code, for real").
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
CS_VERSION=4.100.3
CS_DIR="${AGENTLS_CODE_SERVER_DIR:-/opt/agentls-test/code-server}"
export NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false NPM_CONFIG_UPDATE_NOTIFIER=false

log() { echo "vscode/install: $*"; }

# --- Debian packages -------------------------------------------------------
pkgs=(chromium libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config ripgrep
  build-essential python3 fonts-dejavu-core)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v node >/dev/null || { echo "vscode/install: node (20) is required" >&2; exit 1; }

# --- code-server -----------------------------------------------------------
stamp="$CS_DIR/.agentls-installed-$CS_VERSION"
if [ ! -f "$stamp" ]; then
  log "installing code-server $CS_VERSION into $CS_DIR"
  mkdir -p "$CS_DIR"
  cd "$CS_DIR"
  # Native modules' install scripts call `npx node-gyp`; a machine-wide
  # npmrc with yes=false would make npx refuse.
  export npm_config_yes=true
  [ -f package.json ] || echo '{"name":"agentls-code-server","private":true}' >package.json
  npm install --no-save "code-server@$CS_VERSION" --ignore-scripts --loglevel=error
  cs="$CS_DIR/node_modules/code-server"
  # What code-server's own postinstall would do, minus its downloads.
  (cd "$CS_DIR" && npm rebuild argon2 --loglevel=error)
  cd "$cs/lib/vscode"
  npm install --unsafe-perm --omit=dev --ignore-scripts --loglevel=error
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp -f /usr/bin/rg node_modules/@vscode/ripgrep/bin/rg
  npm rebuild --loglevel=error
  ln -sfn node_modules node_modules.asar
  ln -sfn code-linux.sh bin/remote-cli/code-server
  ln -sfn browser-linux.sh bin/helpers/browser.sh
  (cd extensions && npm install --unsafe-perm --omit=dev --loglevel=error)
  touch "$stamp"
fi
test -f "$CS_DIR/node_modules/code-server/out/node/entry.js" || {
  echo "vscode/install: code-server entry.js missing under $CS_DIR; remove $stamp and rerun" >&2
  exit 1
}

# --- the extension's packages ------------------------------------------------
# npm ci only when package-lock.json changed since the last install.
cd "$HERE"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
have="$(cat node_modules/.agentls-lock-sha 2>/dev/null || true)"
if [ "$want" != "$have" ]; then
  log "npm ci in editors/vscode"
  npm ci --loglevel=error
  echo "$want" >node_modules/.agentls-lock-sha
fi
log "ok (code-server $CS_VERSION in $CS_DIR, $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium ?'))"
