#!/usr/bin/env bash
# System calls per QoS 1 message over mutual TLS: the gateway (discard sink) against Mosquitto, the load of
# uplink-vs-mosquitto.sh, counted with strace over the measured run. What each server asks of the kernel per message
# (reads, writes, epoll waits and changes, futex wake-ups), not what it costs: strace slows every call it stops, so
# the servers batch more events per wake-up than they do untraced, and no CPU figure is taken here.
#
# For each round and each server: a fresh server, one unrecorded warm-up `bench publish` (WARMUP_DURATION), then
# `strace -c -f` attached to every thread of the server for the whole measured run (DURATION; its devices' handshakes
# included: one per device), then the server is stopped. Calls per acknowledged message by kind go to
# OUT/results.tsv, the full strace table of each run to OUT/r<round>-<server>/strace.txt. Servers as in
# uplink-vs-mosquitto.sh (SERVERS="gateway:old=<dist> gateway:new=<dist> mosquitto").
#
#   gateway-bench/bin/syscalls-vs-mosquitto.sh [--devices 1000] [--rounds 3] [--out DIR] [--pki-dir DIR]
#
# Environment (defaults in brackets): DEVICES [1000], RATE [5000], QOS [1], PAYLOAD [200], DURATION [30s],
# WARMUP_DURATION [30s], SOURCE, GW_PORT, GW_ADMIN_PORT, MOSQ_PORT, SERVERS ["gateway mosquitto"], GATEWAY_OPTS.
# Needs the distribution (./mvnw -DskipTests package), Debian's mosquitto and strace, jq; ptrace allowed (root, or
# kernel.yama.ptrace_scope 0).
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
BENCH="$MODULE/bin/bench"
# driver_defaults, uplink_defaults, uplink_publish, prepare_driver, start_driver_server, stop_server, stop_pid
source "$MODULE/bin/driver-functions.sh"

driver_defaults syscalls-vs-mosquitto 1000 "$@"
uplink_defaults 30s
command -v strace >/dev/null || { echo "needs strace: apt-get install -y strace" >&2; exit 2; }

prepare_driver
TRACER=""
trap 'stop_pid "$TRACER" 10; stop_server' EXIT

# per_message STRACE-TABLE ACKED: calls per message by kind, tab-separated: reads writes epoll_waits epoll_ctls futex
# other total
per_message() {
  awk -v m="$2" '
    # a row: % time, seconds, usecs/call, calls, [errors,] syscall
    NF >= 5 && $1 ~ /^[0-9.]+$/ && $4 ~ /^[0-9]+$/ {
      name = $NF; calls = $4
      if (name == "total") next
      if (name ~ /^(read|readv|recvfrom|recvmsg|recvmmsg)$/) k = "r"
      else if (name ~ /^(write|writev|sendto|sendmsg|sendmmsg)$/) k = "w"
      else if (name ~ /^epoll_(wait|pwait|pwait2)$/) k = "e"
      else if (name == "epoll_ctl") k = "c"
      else if (name == "futex") k = "f"
      else k = "o"
      n[k] += calls; all += calls
    }
    END { printf "%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f", n["r"]/m, n["w"]/m, n["e"]/m, n["c"]/m, n["f"]/m, n["o"]/m, all/m }
  ' "$1"
}

printf 'round\tserver\tutc\tacked\treads\twrites\tepoll_waits\tepoll_ctls\tfutex\tother\ttotal\n' > "$OUT/results.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for entry in $SERVERS; do
    start_driver_server "$round" "$entry" syscalls-gw
    utc="$(date -u +%H:%M:%SZ)"
    echo "== r$round $label at $utc"
    uplink_publish warmup "$WARMUP_DURATION" "$admin" --gateway-pid "$SERVER_PID" || echo "warm-up exited $?"
    tids="$(ls "/proc/$SERVER_PID/task" | paste -sd, -)"
    strace -c -f -q -p "$tids" -o "$dir/strace.txt" 2>/dev/null &
    TRACER=$!
    sleep 2
    uplink_publish bench "$DURATION" none || echo "bench exited $? (see $dir/bench.out)"
    # strace writes its table when interrupted
    kill -INT "$TRACER" 2>/dev/null || true
    wait "$TRACER" 2>/dev/null || true
    TRACER=""
    stop_server
    acked="$(jq -r '.publish.acked // 0' "$dir/bench/summary.json" 2>/dev/null || echo 0)"
    if [[ "$acked" -gt 0 && -s "$dir/strace.txt" ]]; then
      printf '%s\t%s\t%s\t%s\t%s\n' "$round" "$label" "$utc" "$acked" "$(per_message "$dir/strace.txt" "$acked")" \
        >> "$OUT/results.tsv"
    else
      printf '%s\t%s\t%s\tno count (see %s)\n' "$round" "$label" "$utc" "$dir" >> "$OUT/results.tsv"
    fi
    tail -n 1 "$OUT/results.tsv"
  done
done
echo "results: $OUT/results.tsv"
column -t -s $'\t' "$OUT/results.tsv"
