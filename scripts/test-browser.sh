#!/usr/bin/env bash
# Makes a real Chromium ready for the report tests (test/cases/reports.test.ts opens the HTML report in it): installs
# Debian's chromium when /usr/bin/chromium is missing, then checks that it starts headless. Idempotent and quick when
# it is already there. AGENTCTL_TEST_BROWSER=skip is the only opt-out.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=/usr/bin/chromium

source scripts/lib/test-setup.sh
setup_begin test-browser AGENTCTL_TEST_BROWSER 'Chromium is NOT prepared; the HTML report browser tests will be pending'

# --- package ----------------------------------------------------------------------------------------------------
step='install chromium'
if [[ ! -x "$CHROMIUM" ]]; then
  [[ "$(id -u)" == 0 ]] || fail "$CHROMIUM is missing; run as root to apt-install it (or set AGENTCTL_TEST_BROWSER=skip)"
  apt_install chromium
fi
[[ -x "$CHROMIUM" ]] || fail "$CHROMIUM not found after installing chromium"

# --- smoke --------------------------------------------------------------------------------------------------------
step='chromium starts headless'
version="$("$CHROMIUM" --headless --no-sandbox --disable-gpu --version 2>/dev/null)" || fail "$CHROMIUM --version failed"
say "ready: $version ($CHROMIUM)"
