# Shared by the scripts that make a test machine ready (test-engines.sh, test-browser.sh); sourced, not run.
#   setup_begin NAME OPT_OUT_VARIABLE WHAT_IS_SKIPPED
# defines say/fail (messages prefixed with NAME, failures naming the current $step), reports any failing command,
# and handles the opt-out: OPT_OUT_VARIABLE=skip exits 0 loudly, any other value is refused.
#   apt_install PACKAGE...
# installs Debian packages quietly, showing apt's log only when it fails.

setup_begin() {
  SETUP_NAME="$1"
  step='start'
  trap 'printf "%s: FAILED (%s): command at line %s exited %s\n" "$SETUP_NAME" "$step" "$LINENO" "$?" >&2' ERR
  local variable="$2" value="${!2:-}"
  if [[ "$value" == skip ]]; then
    say "!!! $variable=skip: $3 !!!"
    exit 0
  fi
  [[ -z "$value" ]] || fail "$variable='$value' is not understood (only 'skip' is)"
}

say() { printf '%s: %s\n' "$SETUP_NAME" "$*"; }
fail() { printf '%s: FAILED (%s): %s\n' "$SETUP_NAME" "$step" "$*" >&2; exit 1; }

apt_install() {
  command -v apt-get >/dev/null || fail "apt-get is unavailable and these packages are missing: $*"
  say "installing $* (apt-get)"
  local log
  log="$(mktemp)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; fail 'apt-get update failed'; }
  apt-get install -y -qq "$@" >>"$log" 2>&1 || { tail -n 30 "$log" >&2; rm -f "$log"; fail 'apt-get install failed'; }
  rm -f "$log"
}
