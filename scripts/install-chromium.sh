#!/usr/bin/env bash
# Install Debian's headless-capable Chromium (/usr/bin/chromium) for the report site's
# browser test (tests/site_browser.rs), when it is missing: apt-get as root. Without root
# or a package mirror it says so and exits 3; the browser test then reports that it
# skipped (or fails under DP_REPRO_REQUIRE_BROWSER=1, as in CI).
#
#   scripts/install-chromium.sh
#   scripts/install-chromium.sh --check   # exit 0 if installed, 3 if not; installs nothing
set -euo pipefail
say() { echo "install-chromium: $*" >&2; }
case ${1:-} in
  '' | --check) ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
if [ -x /usr/bin/chromium ]; then
  say "$(/usr/bin/chromium --version 2>/dev/null || echo chromium) is installed"
  exit 0
fi
if [ "${1:-}" = --check ]; then
  say "no /usr/bin/chromium (Debian's package chromium; $0 installs it as root)"
  exit 3
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  say "no /usr/bin/chromium, and installing it needs root and apt-get (Debian's package chromium)"
  exit 3
fi
say "installing Debian's chromium (about a minute)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq chromium >/dev/null
say "$(/usr/bin/chromium --version 2>/dev/null) installed"
