#!/usr/bin/env bash
# The field profile in steady state, three servers side by side in one window: server CPU per packet and per
# device-hour over mutual TLS for the gateway with its uplink into a real Kafka broker (`kafka`), the same
# distribution with the discard sink (`discard`), and Mosquitto (`mosquitto`: no subscriber, so it drops what it
# receives). The Kafka path's cost per packet is the kafka row minus the discard row.
#
# Each round: a fresh single Kafka broker (KRaft, from jars; the uplink topic with KAFKA_PARTITIONS partitions; the
# gateway's producer at its defaults, acks all), then the three servers, fresh (the gateways with `run --profile
# density --connections DEVICES+1000`), then three `bench connect` runs started together, each on its own server port
# and source addresses: DEVICES devices at the field profile (heartbeat 20 B / 15 s QoS 1, status 500 B / 60 s QoS 1,
# PINGREQ / 120 s keepalive), at most PER_WORKER devices per worker process, ramped at RAMP_RATE with at most
# MAX_HANDSHAKES in flight. Each bench settles SETTLE after its own ramp, then holds WINDOW + 5 s. Neither server is
# scraped during the run (the bench runs with --admin none).
#
# Where each figure comes from:
#   cpu_s         /proc/<pid>/stat utime + stime (CLK_TCK) of the server process over its window: WINDOW seconds from
#                 the first line its bench prints in the hold phase (up to ~1 s after the phase starts), so the window
#                 lies inside the bench's hold and the bench's closes come after it. The three windows start within
#                 seconds of each other (each bench's ramp ends on its own); OUT/rN/windows.tsv has their times.
#   shares        per thread from /proc/<pid>/task/*/stat, grouped by /proc/<pid>/task/<tid>/comm: event_loop (mqtt-io*,
#                 mqtt-accept*), kafka_producer (kafka-producer-network-thread, comm "kafka-producer-"), gc (GC
#                 Thread*, G1 *), jit (*CompilerThre*), other; CPU of threads that ended within the window is only
#                 in the process total (row "exited" of OUT/threads-rN-SERVER.tsv). Mosquitto has one thread: no shares.
#   packets       the bench's counts over its hold phase, alike for all three servers: PUBLISHes acknowledged
#                 (hold.acked) + PINGREQs answered (hold.pingRespMs.count), as a rate (over the hold's seconds) times
#                 the window. The gateways' /metrics are saved just before and after the window
#                 (OUT/rN/SERVER/metrics-{start,end}.txt) for a cross-check; no figure is taken from them.
#   puback_p50_ms, puback_p99_ms, failures (failed connection attempts), drops (devices disconnected without the bench
#                 closing them; must be 0): the bench's hold phase.
#   load1         the 1-minute load average at the window's start and end ("start/end").
# Output: OUT/results.tsv (one line per round and server), OUT/threads-rN-SERVER.tsv, OUT/kafka-path.tsv (kafka minus
# discard per round); each round's servers, broker and bench output in OUT/rN/.
#
#   gateway-bench/bin/field-profile-vs-mosquitto.sh [--devices 18000] [--rounds 3] [--out DIR] [--pki-dir DIR]
#
# Environment (defaults in brackets): DEVICES [18000] (per server), ROUNDS [3], SETTLE [60s], WINDOW [10m],
# RAMP_RATE [1000] (new connections per second per server), MAX_HANDSHAKES [300] (per server), PER_WORKER [9000]
# (devices per bench worker process: a process may hold about 20,000 open files), GW_KAFKA_PORT [18893],
# GW_KAFKA_ADMIN [18097], GW_DISCARD_PORT [18894], GW_DISCARD_ADMIN [18098], MOSQ_PORT [18895], SOURCE_OCTET [5] (the
# servers' devices come from 127.0.N.2-250, 127.0.N+1.2-250 and 127.0.N+2.2-250), OUT
# [bench-results/field-profile-<time>], PKI [/tmp/field-pki], GATEWAY_OPTS (the gateways' JVM options), WORKER_JVM
# (the bench's --worker-jvm), KAFKA_PARTITIONS [12], KAFKA_OPTS [-Xmx1g], KAFKA_CACHE
# [~/.cache/mqttgw-bench/kafka-4.3.1], KAFKA_CONFIG (gateway.yaml lines for the gateway into Kafka only, e.g.
# "uplink.kafka.compression: lz4"). One round takes about the ramp + SETTLE + WINDOW + 2 minutes.
# Needs: the distribution (./mvnw -DskipTests package), Debian's mosquitto, java, jq, curl.
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
BENCH="$MODULE/bin/bench"
# driver_options, prepare_driver, start_mosquitto, start_gateway_dist, stop_pid, seconds, cpu_ticks, stat_ticks,
# kafka_jars, start_kafka, kafka_sink_config
source "$MODULE/bin/driver-functions.sh"

ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-bench-results/field-profile-$(date -u +%Y%m%d-%H%M%S)}"
PKI="${PKI:-/tmp/field-pki}"
driver_options "$@"
DEVICES="${DEVICES:-18000}"
SETTLE="${SETTLE:-60s}"
WINDOW="${WINDOW:-10m}"
RAMP_RATE="${RAMP_RATE:-1000}"
MAX_HANDSHAKES="${MAX_HANDSHAKES:-300}"
PER_WORKER="${PER_WORKER:-9000}"
GW_KAFKA_PORT="${GW_KAFKA_PORT:-18893}"
GW_KAFKA_ADMIN="${GW_KAFKA_ADMIN:-18097}"
GW_DISCARD_PORT="${GW_DISCARD_PORT:-18894}"
GW_DISCARD_ADMIN="${GW_DISCARD_ADMIN:-18098}"
MOSQ_PORT="${MOSQ_PORT:-18895}"
SOURCE_OCTET="${SOURCE_OCTET:-5}"
KAFKA_PARTITIONS="${KAFKA_PARTITIONS:-12}"
WINDOW_S="$(seconds "$WINDOW")"
SETTLE_S="$(seconds "$SETTLE")"
# the bench holds a little longer than the window, which starts up to ~1 s into the hold
HOLD_S=$((WINDOW_S + 5))
WORKER_ARGS=()
[[ -n "${WORKER_JVM:-}" ]] && WORKER_ARGS=(--worker-jvm "$WORKER_JVM")
SERVERS=(kafka discard mosquitto)
command -v java >/dev/null || { echo "needs java on the PATH for the Kafka broker" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

prepare_driver
PIDS=()
KAFKA_PID=""
stop_all() { # benches and their samplers first (their devices close), then the servers, then the broker
  local pid
  for pid in "${PIDS[@]}"; do
    stop_pid "$pid" 30
  done
  PIDS=()
  # a server whose start failed half way
  stop_server
  if [[ -n "$KAFKA_PID" ]]; then
    stop_pid "$KAFKA_PID" 30
    KAFKA_PID=""
  fi
}
trap stop_all EXIT
trap 'exit 130' INT TERM

load1() {
  cut -d ' ' -f 1 /proc/loadavg
}

# threads PID FILE: "tid<TAB>ticks<TAB>comm" of every live thread of PID, after a line "total<TAB>ticks<TAB>-" of the
# process (which keeps the CPU of threads that have ended)
threads() {
  local pid="$1" task ticks
  {
    printf 'total\t%s\t-\n' "$(cpu_ticks "$pid")"
    for task in /proc/"$pid"/task/*; do
      ticks="$(stat_ticks "$task/stat" 2>/dev/null)" || continue
      printf '%s\t%s\t%s\n' "${task##*/}" "$ticks" "$(cat "$task/comm" 2>/dev/null || echo '?')"
    done
  } > "$2"
}

# window SERVER DIR PID ADMIN BENCH-PID: once the bench in DIR prints its first hold line, WINDOW_S seconds of the
# server's CPU: DIR/threads-{start,end}.tsv and "start_utc end_utc seconds load_start load_end" in DIR/window.txt
window() {
  local server="$1" dir="$2" pid="$3" admin="$4" bench="$5" t0 t1 l0 nap=""
  trap '[[ -n "$nap" ]] && kill "$nap" 2>/dev/null; exit 143' TERM
  until grep -q '\] hold ' "$dir/bench.out" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { echo "$server: the server exited before the window" >&2; return 1; }
    kill -0 "$bench" 2>/dev/null || { echo "$server: the bench ended before its hold" >&2; return 1; }
    sleep 0.2
  done
  [[ "$admin" == none ]] || curl -s -m 5 "http://127.0.0.1:$admin/metrics" > "$dir/metrics-start.txt" || true
  l0="$(load1)"
  t0="$(date +%s%3N)"
  threads "$pid" "$dir/threads-start.tsv"
  sleep "$(awk -v w="$WINDOW_S" -v a="$t0" -v b="$(date +%s%3N)" 'BEGIN { printf "%.3f", w - (b - a) / 1000 }')" &
  nap=$!
  wait "$nap"
  threads "$pid" "$dir/threads-end.tsv"
  t1="$(date +%s%3N)"
  [[ "$admin" == none ]] || curl -s -m 5 "http://127.0.0.1:$admin/metrics" > "$dir/metrics-end.txt" || true
  printf '%s\t%s\t%s\t%s\t%s\n' "$(date -u -d "@$((t0 / 1000))" +%H:%M:%SZ)" \
    "$(date -u -d "@$((t1 / 1000))" +%H:%M:%SZ)" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1000 }')" \
    "$l0" "$(load1)" > "$dir/window.txt"
}

# share FILE SERVER GROUP: the group's share of the process CPU from a split, or nothing where it does not apply
# (Mosquitto has a single thread; only the kafka gateway has a producer)
share() {
  [[ "$2" == mosquitto || ( "$3" == kafka_producer && "$2" != kafka ) ]] && return 0
  awk -F'\t' -v g="$3" '$1 == g { printf "%.3f", $4 }' "$1"
}

# thread_split START END HZ: per thread group "group<TAB>threads<TAB>cpu_s<TAB>share", then "exited" (the process's
# CPU not in a live thread) and "process"; a thread born within the window counts from 0
thread_split() {
  awk -F'\t' -v hz="$3" '
    function group(c) {
      if (c ~ /^mqtt-(io|accept)/) return "event_loop"
      if (c ~ /^kafka-producer/) return "kafka_producer"
      if (c ~ /^(GC Thread|G1 )/) return "gc"
      if (c ~ /CompilerThre/) return "jit"
      return "other"
    }
    FNR == NR { before[$1] = $2; next }
    $1 == "total" { total = $2 - before["total"]; next }
    { d = $2 - ($1 in before ? before[$1] : 0); g = group($3); cpu[g] += d; n[g]++; live += d }
    END {
      print "group\tthreads\tcpu_s\tshare"
      split("event_loop kafka_producer gc jit other", order, " ")
      for (i = 1; i <= 5; i++) { g = order[i]
        printf "%s\t%d\t%.2f\t%.4f\n", g, n[g], cpu[g] / hz, (total > 0 ? cpu[g] / total : 0) }
      printf "exited\t-\t%.2f\t%.4f\n", (total - live) / hz, (total > 0 ? (total - live) / total : 0)
      printf "process\t-\t%.2f\t1\n", total / hz
    }' "$1" "$2"
}

TICK="$(getconf CLK_TCK)"
HEADER=(round server load1 devices window_s cpu_s cpu_us_per_packet cpu_ms_per_device_hour kafka_producer_share
  event_loop_share gc_share jit_share puback_p50_ms puback_p99_ms failures drops packets_per_s connected window_utc)
(IFS=$'\t'; echo "${HEADER[*]}") > "$OUT/results.tsv"
printf 'round\tcpu_us_per_packet\tcpu_ms_per_device_hour\n' > "$OUT/kafka-path.tsv"
kafka_jars
for round in $(seq 1 "$ROUNDS"); do
  RUN_DIR="$OUT/r$round"
  mkdir -p "$RUN_DIR"
  echo "== round $round at $(date -u +%H:%M:%SZ), load $(load1): Kafka broker"
  start_kafka "$RUN_DIR/broker"
  declare -A PID_OF=() PORT_OF=() ADMIN_OF=()
  for server in "${SERVERS[@]}"; do
    dir="$RUN_DIR/$server"
    mkdir -p "$dir"
    case "$server" in
      mosquitto)
        start_mosquitto "$dir" "$MOSQ_PORT" "$PKI"
        PORT_OF[$server]="$MOSQ_PORT"; ADMIN_OF[$server]=none ;;
      *)
        if [[ "$server" == kafka ]]; then
          GW_PORT="$GW_KAFKA_PORT"; GW_ADMIN_PORT="$GW_KAFKA_ADMIN"
          GW_SINK_CONFIG="$(kafka_sink_config)${KAFKA_CONFIG:+$'\n'$KAFKA_CONFIG}"
        else
          GW_PORT="$GW_DISCARD_PORT"; GW_ADMIN_PORT="$GW_DISCARD_ADMIN"; GW_SINK_CONFIG="uplink.sink: discard"
        fi
        start_gateway_dist "$dir" "$ROOT/deploy/target/mqtt-gateway" "field-$server" \
          --profile density --connections $((DEVICES + 1000))
        PORT_OF[$server]="$GW_PORT"; ADMIN_OF[$server]="$GW_ADMIN_PORT" ;;
    esac
    PID_OF[$server]="$SERVER_PID"
    PIDS+=("$SERVER_PID")
    SERVER_PID=""
  done
  echo "   servers up at $(date -u +%H:%M:%SZ): kafka ${PID_OF[kafka]}, discard ${PID_OF[discard]}," \
    "mosquitto ${PID_OF[mosquitto]}; ${DEVICES} devices each"
  benches=(); windows=()
  k=0
  for server in "${SERVERS[@]}"; do
    dir="$RUN_DIR/$server"
    octet=$((SOURCE_OCTET + k))
    "$BENCH" connect --devices "$DEVICES" --per-worker "$PER_WORKER" --pki-dir "$PKI" \
      --source "127.0.$octet.2-127.0.$octet.250" --port "${PORT_OF[$server]}" --admin none \
      --client-prefix "field-$server-" --profile field --heartbeat-qos 1 --status-qos 1 \
      --ramp-rate "$RAMP_RATE" --max-handshakes "$MAX_HANDSHAKES" --settle "${SETTLE_S}s" --hold "${HOLD_S}s" \
      "${WORKER_ARGS[@]}" --out "$dir/bench" > "$dir/bench.out" 2>&1 &
    benches+=($!)
    PIDS=("$!" "${PIDS[@]}")
    window "$server" "$dir" "${PID_OF[$server]}" "${ADMIN_OF[$server]}" "$!" &
    windows+=($!)
    PIDS=("$!" "${PIDS[@]}")
    k=$((k + 1))
  done
  for i in 0 1 2; do
    wait "${windows[$i]}" || echo "   ${SERVERS[$i]}: no window (see $RUN_DIR/${SERVERS[$i]}/bench.out)"
    wait "${benches[$i]}" || echo "   ${SERVERS[$i]}: bench exited $? (see $RUN_DIR/${SERVERS[$i]}/bench.out)"
  done
  stop_all
  printf 'server\tstart\tend\tseconds\tload_start\tload_end\n' > "$RUN_DIR/windows.tsv"
  for server in "${SERVERS[@]}"; do
    dir="$RUN_DIR/$server"
    s="$dir/bench/summary.json"
    if [[ ! -f "$dir/window.txt" || ! -f "$s" ]]; then
      printf '%s\t%s\tno window or no summary (see %s)\n' "$round" "$server" "$dir" >> "$OUT/results.tsv"
      continue
    fi
    printf '%s\t%s\n' "$server" "$(cat "$dir/window.txt")" >> "$RUN_DIR/windows.tsv"
    IFS=$'\t' read -r utc0 utc1 wsec l0 l1 < "$dir/window.txt"
    thread_split "$dir/threads-start.tsv" "$dir/threads-end.tsv" "$TICK" > "$OUT/threads-r$round-$server.tsv"
    tf="$OUT/threads-r$round-$server.tsv"
    cpu="$(awk -F'\t' '$1 == "process" { print $3 }' "$tf")"
    jq -r --arg round "$round" --arg server "$server" --arg load "$l0/$l1" --arg wsec "$wsec" --arg cpu "$cpu" \
      --arg kp "$(share "$tf" "$server" kafka_producer)" --arg el "$(share "$tf" "$server" event_loop)" \
      --arg gc "$(share "$tf" "$server" gc)" --arg jit "$(share "$tf" "$server" jit)" --arg utc "$utc0-$utc1" '
      def r(x; n): if x == null or (x | type) != "number" or (x | isnan) then "" else (x * n | round / n) end;
      .hold as $h | (($h.acked + $h.pingRespMs.count) / $h.seconds) as $rate | ($wsec | tonumber) as $w |
      ($cpu | tonumber) as $c |
      [$round, $server, $load, .devices, $wsec, $cpu, r($c / ($rate * $w) * 1e6; 100),
       r($c / $w * 3600 / .devices * 1e3; 100), $kp, $el, $gc, $jit, r($h.ackLatencyMs.p50; 100),
       r($h.ackLatencyMs.p99; 100), ([$h.failures // {} | to_entries[] | .value] | add // 0),
       $h.unexpectedDisconnects, r($rate; 10), $h.connectedAtEnd, $utc] | @tsv' "$s" >> "$OUT/results.tsv"
    tail -n 1 "$OUT/results.tsv"
  done
  # the Kafka path's own cost: the kafka gateway's figures minus the discard gateway's, same round
  path="$(awk -F'\t' -v r="$round" '$1 == r && $2 == "kafka" { k6 = $7; k7 = $8 }
    $1 == r && $2 == "discard" { d6 = $7; d7 = $8 }
    END { if (k6 != "" && d6 != "") printf "%s\t%.2f\t%.2f", r, k6 - d6, k7 - d7 }' "$OUT/results.tsv")"
  if [[ -n "$path" ]]; then
    echo "$path" >> "$OUT/kafka-path.tsv"
    echo "   Kafka path (kafka - discard): $(cut -f 2 <<< "$path") us per packet, $(cut -f 3 <<< "$path") ms per" \
      "device-hour"
  fi
done
column -t -s $'\t' "$OUT/results.tsv" 2>/dev/null || cat "$OUT/results.tsv"
echo "Kafka path (kafka row minus discard row):"
column -t -s $'\t' "$OUT/kafka-path.tsv" 2>/dev/null || cat "$OUT/kafka-path.tsv"
echo "results: $OUT/results.tsv, threads: $OUT/threads-r*-*.tsv, Kafka path: $OUT/kafka-path.tsv"
