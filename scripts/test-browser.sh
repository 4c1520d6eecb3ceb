#!/usr/bin/env bash
# Makes a real Chromium ready for the report tests (test/cases/reports.test.ts opens the HTML report in it): installs
# Debian's chromium when /usr/bin/chromium is missing, then checks that it starts headless. Idempotent and quick when
# it is already there. AGENTCTL_TEST_BROWSER=skip is the only opt-out.
set -euo pipefail
cd "$(dirname "$0")/.."

CHROMIUM=/usr/bin/chromium

step='start'
say() { printf 'test-browser: %s\n' "$*"; }
fail() { printf 'test-browser: FAILED (%s): %s\n' "$step" "$*" >&2; exit 1; }
trap 'printf "test-browser: FAILED (%s): command at line %s exited %s\n" "$step" "$LINENO" "$?" >&2' ERR

if [[ "${AGENTCTL_TEST_BROWSER:-}" == skip ]]; then
  say '!!! AGENTCTL_TEST_BROWSER=skip: Chromium is NOT prepared; the HTML report browser tests will be pending !!!'
  exit 0
fi
[[ -n "${AGENTCTL_TEST_BROWSER:-}" ]] && fail "AGENTCTL_TEST_BROWSER='${AGENTCTL_TEST_BROWSER}' is not understood (only 'skip' is)"

# --- package ----------------------------------------------------------------------------------------------------
step='install chromium'
if [[ ! -x "$CHROMIUM" ]]; then
  [[ "$(id -u)" == 0 ]] || fail "$CHROMIUM is missing; run as root to apt-install it (or set AGENTCTL_TEST_BROWSER=skip)"
  command -v apt-get >/dev/null || fail "apt-get is unavailable and $CHROMIUM is missing"
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  say 'installing chromium (apt-get)'
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >"$WORK/apt.log" 2>&1 || { cat "$WORK/apt.log" >&2; fail 'apt-get update failed'; }
  apt-get install -y -qq chromium >>"$WORK/apt.log" 2>&1 || { tail -n 30 "$WORK/apt.log" >&2; fail 'apt-get install failed'; }
fi
[[ -x "$CHROMIUM" ]] || fail "$CHROMIUM not found after installing chromium"

# --- smoke --------------------------------------------------------------------------------------------------------
step='chromium starts headless'
version="$("$CHROMIUM" --headless --no-sandbox --disable-gpu --version 2>/dev/null)" || fail "$CHROMIUM --version failed"
say "ready: $version ($CHROMIUM)"
