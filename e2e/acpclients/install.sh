#!/usr/bin/env bash
# Installs the editors the real ACP clients need, for e2e/acpclients_test.go:
#  - Neovim >= 0.11 for CodeCompanion.nvim: Debian forky's neovim, unpacked
#    with dpkg -x (with its own libc and loader) into $AGENTLS_NVIM_ACP
#    (default /opt/agentls-test/nvim-acp), run through the nvim wrapper there;
#  - Emacs >= 29 for agent-shell/acp.el: bookworm-backports' Emacs 30,
#    unpacked into $AGENTLS_EMACS_ACP (default /opt/agentls-test/emacs-acp),
#    run through the emacs wrapper there (it links against Debian 12's libraries).
# The clients themselves are public repositories, not packages: the test
# looks for them at a pinned commit and says how to get them when they are
# missing. The Debian mirror is the one this machine's apt already uses.
# Idempotent; a failure leaves the previous install alone, and the test then
# prints a SKIP line.
set -euo pipefail

nvim_root=${AGENTLS_NVIM_ACP:-/opt/agentls-test/nvim-acp}
emacs_root=${AGENTLS_EMACS_ACP:-/opt/agentls-test/emacs-acp}

# The markdown parser must load too: without it Neovim 0.12's markdown and
# help ftplugins fail (see the wrapper's libdir link below).
nvim_ok() { [ -x "$nvim_root/nvim" ] && "$nvim_root/nvim" --headless -u NONE -c 'lua if vim.fn.has("nvim-0.11")==1 and vim.treesitter.language.add("markdown") then vim.cmd("qall!") else vim.cmd("cquit 1") end' >/dev/null 2>&1; }
emacs_ok() { [ -x "$emacs_root/emacs" ] && "$emacs_root/emacs" --batch --eval '(kill-emacs (if (>= emacs-major-version 29) 0 1))' >/dev/null 2>&1; }

if nvim_ok && emacs_ok; then
  echo "acp clients: $("$nvim_root/nvim" --version | head -1) in $nvim_root; $("$emacs_root/emacs" --version | head -1) in $emacs_root"
  exit 0
fi

# The mirror apt already uses for Debian 12, read from the machine's config.
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
if [ -z "$mirror" ]; then
  mirror=$(awk '$1=="deb" && $3 ~ /^bookworm/ {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
fi
if [ -z "$mirror" ]; then
  echo "acp clients: cannot tell this machine's Debian mirror from /etc/apt; not installed" >&2
  exit 0
fi

if [ ! -f /usr/share/keyrings/debian-archive-trixie-stable.gpg ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq debian-archive-keyring >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts"
cat >"$work/parts/extra.sources" <<SRC
Types: deb
URIs: $mirror
Suites: forky bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg /usr/share/keyrings/debian-archive-trixie-stable.gpg /usr/share/keyrings/debian-archive-trixie-automatic.gpg
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

# unpack ROOT PKG=VERSION...: downloads the packages and unpacks them into ROOT.new.
unpack() {
  local root=$1; shift
  local debs="$work/debs-$(basename "$root")"
  mkdir -p "$debs"
  (cd "$debs" && apt-get "${apt_opts[@]}" download -qq "$@")
  rm -rf "$root.new"
  mkdir -p "$root.new"
  for d in "$debs"/*.deb; do
    dpkg -x "$d" "$root.new"
  done
}

if ! nvim_ok; then
  unpack "$nvim_root" neovim/forky neovim-runtime/forky libc6/forky libgcc-s1/forky \
    libluajit-5.1-2/forky libluajit-5.1-common/forky libtree-sitter0.26/forky \
    libunibilium4/forky libutf8proc3/forky libuv1t64/forky lua-lpeg/forky lua-luv/forky
  cat >"$nvim_root.new/nvim" <<'WRAP'
#!/bin/sh
# Runs the unpacked Debian Neovim with its own loader and libraries.
R=$(dirname "$(readlink -f "$0")")
export VIMRUNTIME="$R/usr/share/nvim/runtime"
exec "$R/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --library-path "$R/usr/lib/x86_64-linux-gnu" "$R/usr/bin/nvim" "$@"
WRAP
  chmod +x "$nvim_root.new/nvim"
  # Run through the loader, Neovim takes its libdir (where the treesitter
  # parsers are, parser/*.so) from the loader's path: usr/lib/x86_64-linux-gnu
  # gives usr/lib/lib/nvim instead of usr/lib/nvim.
  mkdir -p "$nvim_root.new/usr/lib/lib"
  ln -s ../nvim "$nvim_root.new/usr/lib/lib/nvim"
  rm -rf "$nvim_root"
  mv "$nvim_root.new" "$nvim_root"
  nvim_ok || echo "acp clients: the unpacked Neovim does not run" >&2
fi

if ! emacs_ok; then
  unpack "$emacs_root" emacs-nox/bookworm-backports emacs-bin-common/bookworm-backports \
    emacs-common/bookworm-backports emacs-el/bookworm-backports
  cat >"$emacs_root.new/emacs" <<'WRAP'
#!/bin/sh
# Runs the unpacked Emacs from bookworm-backports (Debian 12's own libraries).
R=$(dirname "$(readlink -f "$0")")
v=$(ls "$R/usr/share/emacs" | grep -E '^[0-9]' | head -1)
lisp="$R/usr/share/emacs/$v/lisp"
# No empty element: that would add the compiled-in /usr/share/emacs path.
EMACSLOADPATH=$(find "$lisp" -type d | paste -sd:)
export EMACSLOADPATH
export EMACSDATA="$R/usr/share/emacs/$v/etc"
libexec=$(ls -d "$R"/usr/libexec/emacs/$v/*-linux-gnu | head -1)
export EMACSPATH="$libexec"
export EMACSDOC="$EMACSDATA"
dump=$(ls "$libexec"/emacs*.pdmp | head -1)
exec "$R/usr/bin/emacs-nox" --dump-file="$dump" "$@"
WRAP
  chmod +x "$emacs_root.new/emacs"
  rm -rf "$emacs_root"
  mv "$emacs_root.new" "$emacs_root"
  emacs_ok || echo "acp clients: the unpacked Emacs does not run" >&2
fi
nvim_ok && echo "acp clients: $("$nvim_root/nvim" --version | head -1) in $nvim_root"
emacs_ok && echo "acp clients: $("$emacs_root/emacs" --version | head -1) in $emacs_root"
exit 0
