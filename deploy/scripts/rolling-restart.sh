#!/usr/bin/env bash
# Restarts the gateway nodes of a fleet one at a time (an upgrade: install the new package first, or let the restart
# pick up a new version), each only once the others are ready, so the drained devices always have somewhere to go.
#
# For each node: check that every other node answers /health/ready with 200; restart it (default:
# `ssh NODE sudo systemctl restart mqtt-gateway`; systemd sends SIGTERM, which drains the node: /health/ready 503
# while it still accepts devices for shutdown.ready-grace, then its devices closed at shutdown.drain-rate, MQTT 5.0
# devices told DISCONNECT 0x8B or 0x9C; systemctl returns once the old process exited and the new one started);
# wait until it answers /health/ready with 200 again; wait --settle seconds more so the balancer has marked it up
# (the shipped haproxy.cfg: rise 2 x inter 2s) before the next node leaves. Stops at the first node that does not come
# back (exit status 1), leaving the rest untouched. Prints each node's time and the total.
#
# usage: rolling-restart.sh [--admin-port PORT] [--ready-url URL] [--restart COMMAND] [--settle SECONDS]
#                           [--ready-timeout SECONDS] NODE...
#   {node} in --ready-url and --restart is replaced by the node's name. Defaults:
#   --ready-url http://{node}:9090/health/ready (--admin-port changes the port), --restart
#   "ssh {node} sudo systemctl restart mqtt-gateway", --settle 6, --ready-timeout 600.
# Keep systemd's TimeoutStopSec (deploy/systemd: 90 s) above ready-grace + devices / drain-rate + flush time.
# Needs bash and curl.
set -euo pipefail

admin_port=9090
ready_url=""
restart="ssh {node} sudo systemctl restart mqtt-gateway"
settle=6
ready_timeout=600

die() {
  echo "rolling-restart: $*" >&2
  exit 2
}

while [ $# -gt 0 ]; do
  case "$1" in
    --admin-port) [ $# -ge 2 ] || die "--admin-port needs a port"; admin_port="$2"; shift 2 ;;
    --ready-url) [ $# -ge 2 ] || die "--ready-url needs a URL"; ready_url="$2"; shift 2 ;;
    --restart) [ $# -ge 2 ] || die "--restart needs a command"; restart="$2"; shift 2 ;;
    --settle) [ $# -ge 2 ] || die "--settle needs seconds"; settle="$2"; shift 2 ;;
    --ready-timeout) [ $# -ge 2 ] || die "--ready-timeout needs seconds"; ready_timeout="$2"; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) die "unknown option $1 (--help)" ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || die "no node given (--help)"
for n in "$settle" "$ready_timeout" "$admin_port"; do
  [[ "$n" =~ ^[0-9]+$ ]] || die "not a whole number: $n"
done
[ -n "$ready_url" ] || ready_url="http://{node}:$admin_port/health/ready"
command -v curl >/dev/null || die "curl is needed"

url_of() {
  echo "${ready_url//\{node\}/$1}"
}

# The HTTP status of the node's /health/ready, or 000 when it does not answer.
ready_status() {
  curl -s -o /dev/null -m 5 -w '%{http_code}' "$(url_of "$1")" || true
}

await_ready() {
  local node="$1" deadline=$((SECONDS + ready_timeout)) status
  while :; do
    status="$(ready_status "$node")"
    [ "$status" = 200 ] && return 0
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "rolling-restart: $node not ready after ${ready_timeout}s (last answer: $status); stopping here" >&2
      return 1
    fi
    sleep 1
  done
}

start=$SECONDS
for node in "$@"; do
  for other in "$@"; do
    if [ "$other" != "$node" ] && [ "$(ready_status "$other")" != 200 ]; then
      echo "rolling-restart: $other is not ready, so $node's devices would have one node less to go to;" \
        "waiting for it" >&2
      await_ready "$other" || exit 1
    fi
  done
  began=$SECONDS
  echo "$node: restarting (drains first)"
  if ! sh -c "${restart//\{node\}/$node}"; then
    echo "rolling-restart: restarting $node failed; stopping here" >&2
    exit 1
  fi
  await_ready "$node" || exit 1
  sleep "$settle"
  echo "$node: ready again after $((SECONDS - began)) s"
done
echo "restarted $# nodes in $((SECONDS - start)) s"
