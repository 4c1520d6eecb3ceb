#!/usr/bin/env bash
# Makes real Docker and Podman engines ready for the container tests: installs them when missing, starts both API
# services, imports the local test images (nothing can be pulled) and records their ids in test/.engines.json.
# Idempotent and quick when everything is already up. AGENTCTL_TEST_ENGINES=skip is the only opt-out.
set -euo pipefail
cd "$(dirname "$0")/.."

DOCKER_SOCKET=/run/docker.sock
PODMAN_SOCKET=/run/podman/podman.sock
OUTPUT=test/.engines.json
IMAGE_TAG=1
LOG_DIR=/var/log/agentctl-test
CONF=/etc/containers/containers.conf
# Podman on a cgroup v1 hybrid host without systemd or CAP_SYS_RESOURCE (see docs/testing.md).
CONF_TEXT='[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"'

source scripts/lib/test-setup.sh
setup_begin test-engines AGENTCTL_TEST_ENGINES 'Docker and Podman are NOT prepared; the container suites will be pending'
[[ "$(id -u)" == 0 ]] || fail 'must run as root to install and start Docker and Podman (or set AGENTCTL_TEST_ENGINES=skip)'

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# --- packages -------------------------------------------------------------------------------------------------
step='install packages'
missing=()
# Commands, not package names, so engines installed another way (docker-ce, a newer podman) are used as they are.
# openssl is not an engine: the network client's TLS tests make their test CA with it.
for pair in podman:podman runc:runc dockerd:docker.io curl:curl openssl:openssl; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
# The images need a static busybox (it runs without any library); Debian's dynamic busybox would not do.
[[ "$(dpkg-query -W -f='${Status}' busybox-static 2>/dev/null || true)" == 'install ok installed' ]] || missing+=(busybox-static)
if ((${#missing[@]})); then
  apt_install "${missing[@]}"
fi
for command in podman runc dockerd; do command -v "$command" >/dev/null || fail "$command not found after install"; done
[[ -x /bin/busybox ]] || fail '/bin/busybox not found after installing busybox-static'
# The project's machines may ship a newer client in /usr/local/bin; any client speaks to the daemon's API version.
DOCKER="$(command -v docker)" || fail 'no docker client found'

# --- Podman configuration ---------------------------------------------------------------------------------------
step='podman containers.conf'
conf_holds_settings() {
  local line
  while IFS= read -r line; do grep -qxF -- "$line" "$CONF" || return 1; done <<<"$CONF_TEXT"
}
if [[ ! -f "$CONF" ]]; then
  mkdir -p "$(dirname "$CONF")"
  printf '%s\n' "$CONF_TEXT" >"$CONF"
  say "wrote $CONF"
elif ! conf_holds_settings; then
  # Never replace someone's configuration silently: keep it beside, and say so.
  backup="$CONF.before-agentctl-test.$(date +%s)"
  cp "$CONF" "$backup"
  printf '%s\n' "$CONF_TEXT" >"$CONF"
  say "replaced $CONF (it lacked runtime=runc / cgroupfs / ulimits); the previous file is $backup"
fi

# --- services ---------------------------------------------------------------------------------------------------
answers() { curl --silent --fail --max-time 2 --unix-socket "$1" http://d/_ping >/dev/null 2>&1; }
wait_for() { # socket, name, log
  local deadline=$((SECONDS + 60))
  until answers "$1"; do
    ((SECONDS < deadline)) || { tail -n 20 "$3" >&2 || true; fail "$2 did not answer on $1 within 60 s (log: $3)"; }
    sleep 0.2
  done
}
mkdir -p "$LOG_DIR"

# A service started from a folder that was deleted since still answers /_ping but cannot start a container (its
# container monitors inherit the missing working directory): stop it, so it is started again below, from /.
restart_if_stranded() { # command-line pattern, name
  local pid cwd
  for pid in $(pgrep -f -- "$1" || true); do
    cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null || true)
    [[ "$cwd" == *' (deleted)' ]] || continue
    say "restarting $2 (pid $pid): it runs from a deleted folder, $cwd"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}
restart_if_stranded "^dockerd --host unix://$DOCKER_SOCKET" dockerd
restart_if_stranded "^podman system service --time=0 unix://$PODMAN_SOCKET" 'the Podman API service'

step='docker: start dockerd'
if ! answers "$DOCKER_SOCKET"; then
  say "starting dockerd on $DOCKER_SOCKET (log $LOG_DIR/dockerd.log)"
  rm -f "$DOCKER_SOCKET"
  # Started from /: a service keeps the folder it started in as its working directory (and passes it to the
  # container monitors it starts), so that folder must never be one a checkout may delete.
  (cd / && exec setsid nohup dockerd --host "unix://$DOCKER_SOCKET" >>"$LOG_DIR/dockerd.log" 2>&1 </dev/null) &
  wait_for "$DOCKER_SOCKET" dockerd "$LOG_DIR/dockerd.log"
fi

step='podman: start the API service'
if ! answers "$PODMAN_SOCKET"; then
  say "starting the Podman API service on $PODMAN_SOCKET (log $LOG_DIR/podman.log)"
  mkdir -p "$(dirname "$PODMAN_SOCKET")"
  rm -f "$PODMAN_SOCKET"
  (cd / && exec setsid nohup podman system service --time=0 "unix://$PODMAN_SOCKET" >>"$LOG_DIR/podman.log" 2>&1 </dev/null) &
  wait_for "$PODMAN_SOCKET" 'podman system service' "$LOG_DIR/podman.log"
fi

# --- images -----------------------------------------------------------------------------------------------------
image_id() { # engine, reference -> sha256:<64 hex>, or nothing when absent
  local id
  if [[ "$1" == docker ]]; then
    id="$("$DOCKER" -H "unix://$DOCKER_SOCKET" image inspect --format '{{.Id}}' "$2" 2>/dev/null)" || return 0
  else
    id="$(podman image inspect --format '{{.Id}}' "$2" 2>/dev/null)" || return 0
  fi
  [[ "$id" == sha256:* ]] || id="sha256:$id"
  printf '%s' "$id"
}

busybox_rootfs() { # dir: static busybox with every applet linked, /tmp 1777, a nonroot user 65532
  mkdir -p "$1/bin" "$1/usr/bin" "$1/etc" "$1/tmp" "$1/workspace"
  chmod 1777 "$1/tmp"
  cp /bin/busybox "$1/bin/busybox"
  local applet
  for applet in $(/bin/busybox --list); do [[ -e "$1/bin/$applet" ]] || ln -s busybox "$1/bin/$applet"; done
  ln -sf ../../bin/busybox "$1/usr/bin/env"
  printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/tmp:/bin/sh\n' >"$1/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"$1/etc/group"
}

node_rootfs() { # dir: busybox plus this machine's node and the shared libraries it loads, at the same paths
  busybox_rootfs "$1"
  local node library
  node="$(readlink -f "$(command -v node)")" || fail 'node not found'
  mkdir -p "$1/usr/bin" "$1/usr/local/bin"
  cp "$node" "$1/usr/bin/node"
  ln -s ../../bin/node "$1/usr/local/bin/node"
  for library in $(ldd "$node" | grep -o '/[^ ]*'); do
    mkdir -p "$1$(dirname "$library")"
    cp -L "$library" "$1$library"
  done
}

volume_rootfs() { # dir: busybox whose /data (declared a VOLUME at import), /run and /var/tmp uid 65532 could write
  busybox_rootfs "$1"
  mkdir -p "$1/data" "$1/run" "$1/var/tmp"
  chmod 1777 "$1/data" "$1/run" "$1/var/tmp"
  printf 'from the image\n' >"$1/run/image-file"
}

declare -A IDS
for image in busybox node volume; do
  for engine in docker podman; do
    step="$engine: image $image"
    reference="agentctl-test/$image:$IMAGE_TAG"
    id="$(image_id "$engine" "$reference")"
    if [[ -z "$id" ]]; then
      if [[ ! -f "$WORK/$image.tar" ]]; then
        "${image}_rootfs" "$WORK/$image"
        tar -C "$WORK/$image" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$WORK/$image.tar" .
      fi
      say "importing $reference into $engine"
      changes=(--change 'ENV PATH=/usr/local/bin:/usr/bin:/bin')
      [[ "$image" == volume ]] && changes+=(--change 'VOLUME /data')
      if [[ "$engine" == docker ]]; then
        "$DOCKER" -H "unix://$DOCKER_SOCKET" import "${changes[@]}" "$WORK/$image.tar" "$reference" >/dev/null
      else
        podman import --quiet "${changes[@]}" "$WORK/$image.tar" "$reference" >/dev/null
      fi
      id="$(image_id "$engine" "$reference")"
    fi
    [[ "$id" =~ ^sha256:[0-9a-f]{64}$ ]] || fail "no image id for $reference (got '$id')"
    IDS["$engine.$image"]="$id"
  done
done

# --- record -----------------------------------------------------------------------------------------------------
step='write test/.engines.json'
json="$(printf '{"docker":{"socket":"%s","images":{"busybox":"%s","node":"%s","volume":"%s"}},"podman":{"socket":"%s","images":{"busybox":"%s","node":"%s","volume":"%s"}}}' \
  "$DOCKER_SOCKET" "${IDS[docker.busybox]}" "${IDS[docker.node]}" "${IDS[docker.volume]}" "$PODMAN_SOCKET" "${IDS[podman.busybox]}" "${IDS[podman.node]}" "${IDS[podman.volume]}")"
if [[ ! -f "$OUTPUT" || "$(cat "$OUTPUT")" != "$json" ]]; then
  printf '%s\n' "$json" >"$OUTPUT.tmp"
  mv "$OUTPUT.tmp" "$OUTPUT"
fi
say "docker and podman ready; image ids in $OUTPUT"
