#!/usr/bin/env bash
# Uplink CPU per message over mutual TLS: the gateway (discard sink) against Mosquitto through the same bench, same
# certificates, same machine, alternating, a fresh server per run.
#
# For each round and each server: one unrecorded warm-up `bench publish` (WARMUP_DURATION), then the measured one
# (DURATION) against the same server process, then the server is stopped. The measured run's server CPU per message
# (the bench reads /proc/<pid>/stat over the publish window; jit_us and gc_us are the part of it spent by the JVM's
# JIT compiler and collector threads) and PUBACK latency go to OUT/results.tsv.
# Two gateway builds can be compared in one run: SERVERS names each gateway as gateway:<label>=<distribution dir>
# (the directory holding bin/gateway), e.g.
#   SERVERS="gateway:old=/tmp/old-dist gateway:new=deploy/target/mqtt-gateway mosquitto" uplink-vs-mosquitto.sh
# Config keys of one gateway follow its name after commas, so one build can run two ways, e.g. epoll against NIO:
#   SERVERS="gateway:epoll gateway:nio,server.transport=nio mosquitto" uplink-vs-mosquitto.sh
#
#   gateway-bench/bin/uplink-vs-mosquitto.sh [--devices 1000] [--rounds 3] [--out DIR] [--pki-dir DIR]
#
# Environment (defaults in brackets): DEVICES [1000], RATE [5000] (PUBLISH/s over all devices), QOS [1],
# PAYLOAD [200], DURATION [30s], WARMUP_DURATION [20s], MQTT_VERSION [3.1.1], SOURCE [127.0.1.2-127.0.1.250],
# GW_PORT [18883], GW_ADMIN_PORT [18090], MOSQ_PORT [18884], SERVERS ["gateway mosquitto"] (plain `gateway` is the
# distribution built in this checkout), GATEWAY_OPTS (extra JVM options for the gateway).
# Needs: the distribution (./mvnw -DskipTests package), Debian's mosquitto, jq.
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
BENCH="$MODULE/bin/bench"
# driver_defaults, uplink_defaults, uplink_publish, prepare_driver, start_driver_server, stop_server
source "$MODULE/bin/driver-functions.sh"

driver_defaults uplink-vs-mosquitto 1000 "$@"
uplink_defaults 20s

prepare_driver

printf 'round\tserver\tutc\tload1\tcpu_us_per_msg\tjit_us\tgc_us\tpuback_p50_ms\tpuback_p99_ms\tfailures\n' > "$OUT/results.tsv"
for round in $(seq 1 "$ROUNDS"); do
  for entry in $SERVERS; do
    start_driver_server "$round" "$entry" uplink-gw
    load="$(uptime | sed 's/.*load average: \([0-9.]*\),.*/\1/')"
    utc="$(date -u +%H:%M:%SZ)"
    echo "== r$round $label at $utc, load $load"
    for phase in warmup bench; do
      d="$DURATION"; [[ "$phase" == warmup ]] && d="$WARMUP_DURATION"
      uplink_publish "$phase" "$d" "$admin" --gateway-pid "$SERVER_PID" || echo "bench exited $? (see $dir/$phase.out)"
    done
    stop_server
    s="$dir/bench/summary.json"
    if [[ -f "$s" ]]; then
      jq -r --arg round "$round" --arg server "$label" --arg utc "$utc" --arg load "$load" '
        [$round, $server, $utc, $load,
         # a JVM gateway counts what it received (its /metrics); for Mosquitto the messages the bench had acknowledged
         ((.publish.gatewayCpuMicrosPerMessage // (.publish.gatewayCpuSeconds / .publish.acked * 1e6)) * 10
          | round / 10),
         # of that, the JIT compiler threads and the collector threads (concurrent refinement included); 0 for Mosquitto
         (.publish.gatewayCpuSplitMicrosPerMessage.jit // "" | if type == "number" then . * 10 | round / 10 else . end),
         (.publish.gatewayCpuSplitMicrosPerMessage.gc // "" | if type == "number" then . * 10 | round / 10 else . end),
         (.publish.ackLatencyMs.p50 // "" | if type == "number" then . * 100 | round / 100 else . end),
         (.publish.ackLatencyMs.p99 // "" | if type == "number" then . * 100 | round / 100 else . end),
         ([.publish.failures // {} | to_entries[] | .value] | add // 0)] | @tsv' "$s" >> "$OUT/results.tsv"
    else
      printf '%s\t%s\t%s\t%s\tno summary (see %s)\n' "$round" "$label" "$utc" "$load" "$dir/bench.out" >> "$OUT/results.tsv"
    fi
    tail -n 1 "$OUT/results.tsv"
  done
done
echo "results: $OUT/results.tsv"
column -t -s $'\t' "$OUT/results.tsv"
