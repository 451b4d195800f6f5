#!/usr/bin/env bash
# Storms, gateway against Mosquitto through the same bench, same certificates, same machine.
#
# For each round: a fresh gateway, then a fresh Mosquitto, each through `bench storm` twice (--resume false, then
# --resume true). One storm run measures the initial ramp (all devices connect) and then a drop of a fraction of
# them at once with their reconnection. Every server is started fresh for every run. Figures go to OUT/results.tsv
# (one line per run) and each run's bench report to OUT/<run>/.
# A scenario `<server>:ramps` instead runs two `bench connect` ramps against the same server, the second with new
# client ids and certificates (prefix `again-`): its CPU per connection is a full handshake with the JIT warm and the
# certificate unknown to any cache (the "JIT warm" figure). Those go to OUT/ramps.tsv.
# A scenario `<server>:warm-true` (or `warm-false`) runs the same storm WARM_UPS + 1 times against one server and
# reports the last: the JIT is warm and the devices' certificates are known, as after a first storm in production
# (the warm-up runs' reports are in <run>/warmup, <run>/warmup2, ...). Two by default: after one (9,000 resumptions)
# the gateway's C2 compiler still worked through the measured reconnects (0.006-0.02 ms of its CPU per reconnect);
# after two it has seen 18,000, as the full-handshake figure's second ramp has (docs/benchmarks/history.md).
#
#   gateway-bench/bin/storm-vs-mosquitto.sh [--devices 18000] [--rounds 1] [--out DIR] [--pki-dir DIR]
#
# Environment (defaults in brackets): SOURCE [127.0.1.2-127.0.1.250], GW_PORT [18883], GW_ADMIN_PORT [18090],
# MOSQ_PORT [18884], RAMP_RATE [800], MAX_HANDSHAKES [400] (the client's totals over its workers), PER_WORKER
# [9000], DROP [0.5], WARM_UPS [2] (storms before the measured one in a warm-* scenario), RECONNECT_AFTER [0s]
# (storms: the dropped devices wait this long, e.g. 6s, so the server's CPU per reconnect, column reconnect_cpu_ms,
# is read without the closes; storm_s is then timed from the end of the wait; client_reconnect_cpu_ms is the bench's
# own CPU per reconnect over the same window;
# reconnect_user_ms, reconnect_sys_ms, reconnect_jit_ms and reconnect_gc_ms split the server's figure by thread:
# user and system time of its own threads, then its JIT compiler and GC threads), GATEWAY_OPTS (extra JVM options
# for the gateway, e.g. -Dmqttgw.admission.max-handshakes=1000),
# GATEWAY_RUN_ARGS (extra `gateway run` arguments, e.g. "--profile density --connections 19000"),
# SCENARIOS ["gateway:false gateway:true mosquitto:false mosquitto:true"; `gateway=DIR:ramps` runs the distribution in
# DIR instead of this checkout's, to compare two builds in one run], MQTT_VERSION [3.1.1] (or 5: the devices'
# protocol; each run's summary.json and report say which), WORKER_JVM [the bench's --worker-jvm default] (the JVM
# options of the bench's worker processes).
# Needs: the distribution (./mvnw -DskipTests package), Debian's mosquitto (apt-get install -y mosquitto), jq.
# Mosquitto is never signalled by the bench: it reads a non-JVM server's CPU and RSS from /proc only.
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
BENCH="$MODULE/bin/bench"
GATEWAY="$ROOT/deploy/target/mqtt-gateway/bin/gateway"
# driver_options, prepare_driver, metric, start_mosquitto, start_gateway_dist, stop_server
source "$MODULE/bin/driver-functions.sh"

DEVICES=18000
ROUNDS=1
OUT="bench-results/storm-vs-mosquitto-$(date -u +%Y%m%d-%H%M%S)"
PKI=/tmp/storm-pki
driver_options "$@"
SOURCE="${SOURCE:-127.0.1.2-127.0.1.250}"
GW_PORT="${GW_PORT:-18883}"
GW_ADMIN_PORT="${GW_ADMIN_PORT:-18090}"
MOSQ_PORT="${MOSQ_PORT:-18884}"
RAMP_RATE="${RAMP_RATE:-800}"
MAX_HANDSHAKES="${MAX_HANDSHAKES:-400}"
PER_WORKER="${PER_WORKER:-9000}"
DROP="${DROP:-0.5}"
RECONNECT_AFTER="${RECONNECT_AFTER:-0s}"
WARM_UPS="${WARM_UPS:-2}"
[[ "$WARM_UPS" =~ ^[1-9][0-9]*$ ]] || { echo "WARM_UPS must be a whole number of storms from 1, e.g. 2" >&2; exit 2; }
SCENARIOS="${SCENARIOS:-gateway:false gateway:true mosquitto:false mosquitto:true}"
MQTT_VERSION="${MQTT_VERSION:-3.1.1}"
WORKER_ARGS=()
[[ -n "${WORKER_JVM:-}" ]] && WORKER_ARGS=(--worker-jvm "$WORKER_JVM")

[[ -x "$GATEWAY" ]] || { echo "needs the distribution: ./mvnw -DskipTests package" >&2; exit 2; }
prepare_driver

printf 'round\tserver\tutc\tload1\tramp1_s\tramp1_cpu_ms\tramp1_failed\tramp1_missed\tramp2_s\tramp2_cpu_ms\tramp2_failed\tramp2_missed\n' > "$OUT/ramps.tsv"
ramp_figures() { # summary.json -> seconds, CPU ms per connection, failed attempts, starts the client missed
  jq -r '[(.ramp.seconds | . * 10 | round / 10),
          (((.gateway[] | select(.label == "after-ramp") | .cpuSeconds) - (.gateway[] | select(.label == "before")
            | .cpuSeconds)) / .devices * 1e5 | round / 100),
          ([.ramp.failures | to_entries[] | select(.key != "devices_failed_more_than_once") | .value] | add // 0),
          (.ramp.startsMissed // 0)]
         | @tsv' "$1"
}
printf 'round\tserver\tresume\tutc\tload1\tramp_s\tramp_failed\tramp_refused\tramp_hs_timeouts\tramp_devices_failed_twice\tramp_missed\tstorm_s\tstorm_failed\tstorm_refused\tstorm_hs_timeouts\tstorm_devices_failed_twice\tcollateral\tlistener_closes\tbusy_changes\tgw_held\tgw_rejected\tgw_hs_timeouts\tramp_cpu_ms\tstorm_cpu_ms\treconnect_cpu_ms\tclient_reconnect_cpu_ms\treconnect_user_ms\treconnect_sys_ms\treconnect_jit_ms\treconnect_gc_ms\tuptime\n' \
  > "$OUT/results.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for sc in $SCENARIOS; do
    server="${sc%%:*}"
    # gateway=DIR runs the distribution in DIR (e.g. an older build) under the label gateway-<DIR's name>
    dist="$ROOT/deploy/target/mqtt-gateway"
    if [[ "$server" == gateway=* ]]; then
      dist="${server#gateway=}"; server="gateway-$(basename "$dist")"
    fi
    resume="${sc##*:}"
    run="r$round-$server-resume-$resume"
    warm=""
    if [[ "$resume" == warm-* ]]; then
      warm=1; resume="${resume#warm-}"
    fi
    dir="$OUT/$run"
    mkdir -p "$dir"
    if [[ "$server" == gateway* ]]; then
      # shipped defaults apart from ports, files and the discard sink
      # shellcheck disable=SC2086 # GATEWAY_RUN_ARGS holds several arguments
      start_gateway_dist "$dir" "$dist" storm-gw ${GATEWAY_RUN_ARGS:-}
      port="$GW_PORT"; admin="127.0.0.1:$GW_ADMIN_PORT"
    else
      start_mosquitto "$dir" "$MOSQ_PORT" "$PKI"
      port="$MOSQ_PORT"; admin=none
    fi
    load="$(uptime)"
    utc="$(date -u +%H:%M:%SZ)"
    echo "== $run at $utc, $load"
    if [[ "$resume" == ramps ]]; then
      for prefix in dev- again-; do
        "$BENCH" connect --devices "$DEVICES" --per-worker "$PER_WORKER" --pki-dir "$PKI" --source "$SOURCE" \
          --port "$port" --admin "$admin" --gateway-pid "$SERVER_PID" --ramp-rate "$RAMP_RATE" \
          --max-handshakes "$MAX_HANDSHAKES" --client-prefix "$prefix" --hold 1s --settle 5s --mqtt-version "$MQTT_VERSION" "${WORKER_ARGS[@]}" \
          --out "$dir/$prefix" > "$dir/$prefix.out" 2>&1 || echo "bench exited $? (see $dir/$prefix.out)"
      done
      stop_server
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$server" "$utc" \
        "$(echo "$load" | sed 's/.*load average: \([0-9.]*\),.*/\1/')" \
        "$(ramp_figures "$dir/dev-/summary.json" 2>/dev/null || printf 'no summary\t\t\t')" \
        "$(ramp_figures "$dir/again-/summary.json" 2>/dev/null || printf 'no summary\t\t\t')" >> "$OUT/ramps.tsv"
      tail -n 1 "$OUT/ramps.tsv"
      continue
    fi
    storm() { # OUT-NAME
      "$BENCH" storm --devices "$DEVICES" --per-worker "$PER_WORKER" --pki-dir "$PKI" --source "$SOURCE" \
        --port "$port" --admin "$admin" --gateway-pid "$SERVER_PID" --ramp-rate "$RAMP_RATE" \
        --max-handshakes "$MAX_HANDSHAKES" --drop "$DROP" --resume "$resume" --backoff-base 1s --backoff-max 30s \
        --reconnect-after "$RECONNECT_AFTER" \
        --settle 5s --mqtt-version "$MQTT_VERSION" "${WORKER_ARGS[@]}" --out "$dir/$1" > "$dir/$1.out" 2>&1 \
        || echo "bench exited $? (see $dir/$1.out)"
    }
    if [[ -n "$warm" ]]; then
      for w in $(seq 1 "$WARM_UPS"); do
        storm "warmup$( ((w > 1)) && echo "$w")"
        sleep 5
      done
    fi
    storm bench
    closes=0; busy=0; held=0; rejected=0; gwto=0
    if [[ "$server" == gateway* ]]; then
      curl -sf "http://127.0.0.1:$GW_ADMIN_PORT/metrics" > "$dir/metrics.txt" || true
      # one count over all the log files (grep -c on several files prints one "file:count" line each)
      closes="$(cat "$dir"/logs/*.log 2>/dev/null | grep -c 'listeners closed for overload' || true)"
      busy="$(metric mqttgw_admission_busy_transitions_total '' "$dir/metrics.txt")"
      held="$(metric mqttgw_admission_held_total '' "$dir/metrics.txt")"
      rejected="$(metric mqttgw_admission_rejected_total '' "$dir/metrics.txt")"
      gwto="$(metric mqttgw_tls_handshake_failures_total 'reason="timeout"' "$dir/metrics.txt")"
    fi
    stop_server
    s="$dir/bench/summary.json"
    if [[ -f "$s" ]]; then
      jq -r --arg round "$round" --arg server "$server" --arg resume "${warm:+warm-}$resume" --arg utc "$utc" \
        --arg load "$(echo "$load" | sed 's/.*load average: \([0-9.]*\),.*/\1/')" --arg closes "${closes:-0}" \
        --arg busy "$busy" --arg held "$held" --arg rejected "$rejected" --arg gwto "$gwto" --arg up "$load" '
        def attempts(m): [m | to_entries[] | select(.key != "devices_failed_more_than_once") | .value] | add // 0;
        [$round, $server, $resume, $utc, $load,
         (.ramp.seconds | . * 10 | round / 10), attempts(.ramp.failures), (.ramp.failures.connect_refused // 0),
         (.ramp.failures.tls_handshake_timeout // 0), (.ramp.failures.devices_failed_more_than_once // 0),
         (.ramp.startsMissed // 0),
         (.storm.secondsToRecover | . * 10 | round / 10), attempts(.storm.failedAttempts),
         (.storm.failedAttempts.connect_refused // 0), (.storm.failedAttempts.tls_handshake_timeout // 0),
         (.storm.failedAttempts.devices_failed_more_than_once // 0), .storm.collateralDisconnects,
         $closes, $busy, $held, $rejected, $gwto,
         (def cpu(l): .gateway[] | select(.label == l) | .cpuSeconds;
          ((cpu("after-ramp") - cpu("before")) / .devices * 1e5 | round / 100),
          (if .storm.dropped > 0 then ((cpu("storm-end") - cpu("storm-start")) / .storm.dropped * 1e5 | round / 100)
           else "" end)),
         (.storm.gatewayCpuMillisPerReconnect // "" | if type == "number" then . * 100 | round / 100 else . end),
         (.storm.clientCpuMillisPerReconnect // "" | if type == "number" then . * 100 | round / 100 else . end),
         (.storm.gatewayCpuSplitMillisPerReconnect // {} | .user, .system, .jit, .gc
          | if type == "number" then . * 1000 | round / 1000 else "" end),
         $up] | @tsv' "$s" >> "$OUT/results.tsv"
    else
      printf '%s\t%s\t%s\t%s\tno summary (see %s)\n' "$round" "$server" "$resume" "$utc" "$dir/bench.out" >> "$OUT/results.tsv"
    fi
    tail -n 1 "$OUT/results.tsv"
  done
done
echo "results: $OUT/results.tsv $OUT/ramps.tsv"
column -t -s $'\t' "$OUT/ramps.tsv"
column -t -s $'\t' "$OUT/results.tsv" | cut -c1-250
