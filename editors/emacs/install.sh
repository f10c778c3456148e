#!/usr/bin/env bash
# Installs what editors/emacs/test.sh needs on Debian 12, as root: Emacs 28
# without X (emacs-nox) and Eglot 1.9 (elpa-eglot), both Debian packages.
# Idempotent: does nothing when both are installed.
set -euo pipefail
if command -v emacs >/dev/null 2>&1 && dpkg -s elpa-eglot >/dev/null 2>&1; then
  echo "emacs: $(emacs --version | head -1), eglot $(dpkg-query -W -f '${Version}' elpa-eglot)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq emacs-nox elpa-eglot >/dev/null
echo "emacs: $(emacs --version | head -1), eglot $(dpkg-query -W -f '${Version}' elpa-eglot)"
