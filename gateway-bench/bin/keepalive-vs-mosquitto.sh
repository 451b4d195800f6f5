#!/usr/bin/env bash
# Server CPU per PINGREQ over mutual TLS: the gateway against Mosquitto through the same bench, same certificates,
# same machine, alternating, a fresh server per run.
#
# For each round and each server: `bench connect` of DEVICES idle devices with a KEEPALIVE keepalive (DEVICES /
# KEEPALIVE PINGREQs a second) held for the whole run; once every device is connected (counted with ss), SETTLE of
# settling, then the server's CPU (/proc/<pid>/stat utime + stime) over WINDOWS windows of WINDOW seconds, each
# divided by its DEVICES * WINDOW / KEEPALIVE PINGREQs; then the server is stopped. Neither server is scraped (the
# bench runs with --admin none). One line per window in OUT/results.tsv. Two gateway builds can be compared in one
# run as in uplink-vs-mosquitto.sh: SERVERS="gateway:old=/tmp/old-dist gateway:new=deploy/target/mqtt-gateway
# mosquitto".
#
#   gateway-bench/bin/keepalive-vs-mosquitto.sh [--devices 18000] [--rounds 3] [--out DIR] [--pki-dir DIR]
#
# Environment (defaults in brackets): DEVICES [18000], KEEPALIVE [20] (seconds), SETTLE [150] (seconds), WINDOWS [3],
# WINDOW [30] (seconds), RAMP_RATE [4000], MAX_HANDSHAKES [1000], SOURCE [127.0.1.2-127.0.1.250], GW_PORT [18883],
# GW_ADMIN_PORT [18090], MOSQ_PORT [18884], SERVERS ["gateway mosquitto"], GATEWAY_OPTS; the gateway runs with
# `run --profile density --connections DEVICES+1000`. Needs the distribution (./mvnw -DskipTests package), Debian's
# mosquitto, jq, ss.
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
BENCH="$MODULE/bin/bench"
# driver_defaults, prepare_driver, start_driver_server, stop_server, stop_pid, cpu_ticks
source "$MODULE/bin/driver-functions.sh"

driver_defaults keepalive-vs-mosquitto 18000 "$@"
KEEPALIVE="${KEEPALIVE:-20}"
SETTLE="${SETTLE:-150}"
WINDOWS="${WINDOWS:-3}"
WINDOW="${WINDOW:-30}"
RAMP_RATE="${RAMP_RATE:-4000}"
MAX_HANDSHAKES="${MAX_HANDSHAKES:-1000}"
command -v ss >/dev/null || { echo "needs ss (iproute2)" >&2; exit 2; }

prepare_driver
CLIENT=""
trap 'stop_pid "$CLIENT" 10; stop_server' EXIT

# established PORT: connections established to 127.0.0.1:PORT
established() {
  ss -Htn state established "( sport = :$1 )" | wc -l
}

TICK="$(getconf CLK_TCK)"
printf 'round\tserver\twindow\tutc\tload1\tconnected\tcpu_s\tpingreqs\tcpu_us_per_pingreq\n' > "$OUT/results.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for server in $SERVERS; do
    start_driver_server "$round" "$server" keepalive-gw --profile density --connections $((DEVICES + 1000))
    hold=$((DEVICES / RAMP_RATE + 60 + SETTLE + WINDOWS * WINDOW + 30))
    echo "== r$round $label at $(date -u +%H:%M:%SZ): $DEVICES devices, keepalive ${KEEPALIVE}s"
    "$BENCH" connect --devices "$DEVICES" --keepalive "${KEEPALIVE}s" --admin none --ramp-rate "$RAMP_RATE" \
      --max-handshakes "$MAX_HANDSHAKES" --pki-dir "$PKI" --source "$SOURCE" --port "$port" \
      --client-prefix "ka-r$round-" --hold "${hold}s" --settle 1s --out "$dir/bench" > "$dir/bench.out" 2>&1 &
    CLIENT=$!
    for _ in $(seq 1 240); do
      (( $(established "$port") >= DEVICES )) && break
      sleep 1
    done
    echo "   $(established "$port") connected at $(date -u +%H:%M:%SZ); settling ${SETTLE}s"
    sleep "$SETTLE"
    pings=$((DEVICES * WINDOW / KEEPALIVE))
    for w in $(seq 1 "$WINDOWS"); do
      load="$(uptime | sed 's/.*load average: \([0-9.]*\),.*/\1/')"
      utc="$(date -u +%H:%M:%SZ)"
      before="$(cpu_ticks "$SERVER_PID")"
      sleep "$WINDOW"
      after="$(cpu_ticks "$SERVER_PID")"
      awk -v r="$round" -v s="$label" -v w="$w" -v u="$utc" -v l="$load" -v t="$((after - before))" -v hz="$TICK" \
        -v p="$pings" -v c="$(established "$port")" 'BEGIN {
          printf "%s\t%s\t%s\t%s\t%s\t%d\t%.2f\t%d\t%.1f\n", r, s, w, u, l, c, t / hz, p, t / hz / p * 1e6 }' \
        >> "$OUT/results.tsv"
      tail -n 1 "$OUT/results.tsv"
    done
    stop_pid "$CLIENT" 30
    CLIENT=""
    stop_server
  done
done
echo "results: $OUT/results.tsv"
column -t -s $'\t' "$OUT/results.tsv"
