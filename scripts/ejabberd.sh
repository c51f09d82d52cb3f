#!/usr/bin/env bash
# Run a project-local ejabberd configured by the root ejabberd.yml (loopback only).
#
#   bash scripts/ejabberd.sh start     # install check, start, wait until the port answers
#   bash scripts/ejabberd.sh stop
#   bash scripts/ejabberd.sh status
#
# State (spool, logs, pid) lives in $MAW_EJABBERD_DIR (default .ejabberd/ in the repo);
# the client port is $MAW_EJABBERD_PORT (default 5222), the Erlang node
# $MAW_EJABBERD_NODE (default maw@localhost), the configuration $MAW_EJABBERD_CONFIG
# (default the repo's ejabberd.yml; a benchmark's variant, say). Needs Debian's ejabberd package
# (`apt-get install -y ejabberd`); .ci/run installs it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
dir="${MAW_EJABBERD_DIR:-$repo/.ejabberd}"
port="${MAW_EJABBERD_PORT:-5222}"
node="${MAW_EJABBERD_NODE:-maw@localhost}"

if ! command -v ejabberdctl >/dev/null 2>&1; then
  echo "ejabberdctl not found: install ejabberd first (apt-get install -y ejabberd)" >&2
  exit 1
fi

ctl() {
  ejabberdctl --ctl-config "$dir/ejabberdctl.cfg" --config "$dir/ejabberd.yml" \
    --spool "$dir/spool" --logs "$dir/logs" --node "$node" "$@"
}

port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null
}

case "${1:-}" in
  start)
    mkdir -p "$dir/spool" "$dir/logs"
    # the project's config, with the chosen port; Debian's own config must not win,
    # which is why ejabberdctl gets its own --ctl-config too
    # a self-signed certificate of our own for STARTTLS (agents do not verify it)
    if [ ! -s "$dir/server.pem" ]; then
      openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=localhost" \
        -keyout "$dir/server.key" -out "$dir/server.crt" 2>/dev/null
      cat "$dir/server.key" "$dir/server.crt" >"$dir/server.pem"
      rm -f "$dir/server.key" "$dir/server.crt"
    fi
    sed -e "s/port: 5222/port: $port/" \
        -e "s#/etc/ejabberd/ejabberd.pem#$dir/server.pem#" \
        "${MAW_EJABBERD_CONFIG:-$repo/ejabberd.yml}" >"$dir/ejabberd.yml"
    cat >"$dir/ejabberdctl.cfg" <<CFG
ERL_OPTIONS="-env ERL_CRASH_DUMP_BYTES 0"
EJABBERD_PID_PATH=$dir/ejabberd.pid
CFG
    # ejabberdctl run as root switches to the ejabberd user, who must own its files
    if [ "$(id -u)" = 0 ] && id ejabberd >/dev/null 2>&1; then
      chown -R ejabberd:ejabberd "$dir"
      chmod o+x "$dir"
    fi
    if ctl status >/dev/null 2>&1; then
      echo "ejabberd already running on 127.0.0.1:$port ($dir)"
      exit 0
    fi
    if port_open; then
      echo "port $port is already taken by another program (set MAW_EJABBERD_PORT)" >&2
      exit 1
    fi
    ctl start
    for _ in $(seq 1 150); do
      if port_open; then
        echo "ejabberd listening on 127.0.0.1:$port (state in $dir)"
        exit 0
      fi
      sleep 0.2
    done
    echo "ejabberd did not open port $port within 30 s; its log:" >&2
    tail -n 40 "$dir/logs/ejabberd.log" >&2 2>/dev/null || true
    tail -n 40 "$dir/logs/error.log" >&2 2>/dev/null || true
    exit 1
    ;;
  stop)
    if ! ctl status >/dev/null 2>&1 && ! port_open; then
      echo "ejabberd was not running ($dir)"
      exit 0
    fi
    ctl stop >/dev/null 2>&1 || true
    # a stop is only said when the node is down and the port closed; the node's own
    # process is killed if it outlives a polite stop by 30 s
    for i in $(seq 1 150); do
      if ! ctl status >/dev/null 2>&1 && ! port_open; then
        echo "ejabberd stopped"
        exit 0
      fi
      if [ "$i" = 100 ] && [ -s "$dir/ejabberd.pid" ]; then
        kill -9 "$(cat "$dir/ejabberd.pid")" 2>/dev/null || true
      fi
      sleep 0.2
    done
    echo "ejabberd did not stop: its node $node still answers or port $port is open" >&2
    exit 1
    ;;
  status)
    ctl status
    ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
