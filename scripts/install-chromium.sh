#!/usr/bin/env bash
# Install Debian's headless-capable Chromium (/usr/bin/chromium) for the report site's
# browser test (tests/site_browser.rs), when it is missing: apt-get as root. Without root
# or a package mirror it says so and exits 3; the browser test then reports that it
# skipped (or fails under DP_REPRO_REQUIRE_BROWSER=1, as in CI).
#
#   scripts/install-chromium.sh
set -euo pipefail
say() { echo "install-chromium: $*" >&2; }
if [ -x /usr/bin/chromium ]; then
  say "$(/usr/bin/chromium --version 2>/dev/null || echo chromium) is installed"
  exit 0
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
