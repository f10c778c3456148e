#!/usr/bin/env bash
# Installs what editors/nvim/test.sh needs on Debian 12, as root:
#  - Neovim 0.7.2, Debian 12's own package, on the PATH;
#  - Neovim 0.10.x from Debian 13 (trixie), unpacked with dpkg -x into
#    $AGENTLS_NVIM010 (default /opt/agentls-test/nvim-0.10) so the system
#    keeps its own libc and packages. Run it there with the nvim-0.10
#    wrapper this script writes.
# Idempotent: a second run does nothing but check.
set -euo pipefail

root=${AGENTLS_NVIM010:-/opt/agentls-test/nvim-0.10}

if ! command -v nvim >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq neovim >/dev/null
fi

if [ -x "$root/nvim-0.10" ] && "$root/nvim-0.10" --version >/dev/null 2>&1; then
  echo "nvim: $(nvim --version | head -1); $("$root/nvim-0.10" --version | head -1) in $root"
  exit 0
fi

# Older Debian 12 keyrings lack Debian 13's keys.
if [ ! -f /usr/share/keyrings/debian-archive-trixie-stable.gpg ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq debian-archive-keyring >/dev/null
fi

# The mirror apt already uses for Debian 12, read from the machine's config.
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1=="deb" && $3 ~ /^bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
fi
if [ -z "$mirror" ]; then
  echo "nvim: cannot tell this machine's Debian mirror from /etc/apt; Neovim 0.10 not installed" >&2
  exit 0
fi

# A private apt configuration for trixie: its own sources list, lists and
# cache, so the system's apt state never sees Debian 13.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/parts"
cat >"$work/parts/trixie.sources" <<SRC
Types: deb
URIs: $mirror
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-trixie-stable.gpg /usr/share/keyrings/debian-archive-trixie-automatic.gpg
SRC
apt_opts=(
  -o "Dir::Etc::SourceList=/dev/null"
  -o "Dir::Etc::SourceParts=$work/parts"
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache"
  -o "Dir::State::status=/dev/null"
  -o "APT::Architecture=amd64"
  -o "APT::Sandbox::User=root"
)
apt-get "${apt_opts[@]}" update -qq
pkgs=(neovim neovim-runtime libc6 libgcc-s1 libluajit-5.1-2 libluajit-5.1-common
  libmsgpack-c2 libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv)
(cd "$work/debs" && apt-get "${apt_opts[@]}" download -qq "${pkgs[@]}")

rm -rf "$root.new"
mkdir -p "$root.new"
for d in "$work"/debs/*.deb; do
  dpkg -x "$d" "$root.new"
done
cat >"$root.new/nvim-0.10" <<'WRAP'
#!/bin/sh
# Runs the unpacked Debian 13 Neovim with its own loader and libraries.
R=$(dirname "$(readlink -f "$0")")
export VIMRUNTIME="$R/usr/share/nvim/runtime"
exec "$R/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path "$R/usr/lib/x86_64-linux-gnu" "$R/usr/bin/nvim" "$@"
WRAP
chmod +x "$root.new/nvim-0.10"
rm -rf "$root"
mv "$root.new" "$root"
"$root/nvim-0.10" --version | head -1
