#!/usr/bin/env bash
# Set up memtrails on a fresh Debian/Ubuntu machine: the system ICU that PyICU compiles
# against, a virtual environment in .venv, and the package with its test extra.
#   usage: scripts/install.sh            (then: .venv/bin/memtrails --help)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

need=()
command -v pkg-config >/dev/null || need+=(pkg-config)
pkg-config --exists icu-uc 2>/dev/null || need+=(libicu-dev)
command -v g++ >/dev/null || need+=(g++)
command -v tmux >/dev/null || need+=(tmux)  # the progress bar's test drives a real terminal
# the web page's browser test drives Debian's headless Chromium (Playwright, no browser download)
command -v chromium >/dev/null || need+=(chromium chromium-driver)
"$PYTHON" -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need[*]}" >&2
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${need[@]}"
fi

[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
version=$(.venv/bin/memtrails --version)  # fails the install if the package does not import
echo "installed: $version" >&2
