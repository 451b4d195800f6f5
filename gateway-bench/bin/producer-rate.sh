#!/usr/bin/env bash
# The gateway's Kafka producer at a node's record rate: CPU per record of the producer's one network thread, of the
# threads that send into it, of the whole process and of the broker, with batch size, records per request and the
# acknowledgement latency, at each of RATES records a second. No devices and no TLS: the tool
# (io.mqttgw.bench.producer.ProducerRate) builds the gateway's own uplink sink (`uplink.sink: kafka`, its provider,
# the shipped producer defaults: acks all with idempotence, linger 10 ms, snappy) and feeds it from SENDERS Netty event
# loops, each taking its records' completions back as the PUBLISH handler does. The records follow the field
# profile: per device a 20 B heartbeat every 15 s and a 500 B status every 60 s (four heartbeats to one status), one
# topic per kind (device.heartbeat, device.status; KAFKA_PARTITIONS partitions), keyed by one of DEVICES device ids.
#
# Each round: a fresh single Kafka broker (KRaft, from jars, as field-profile-vs-mosquitto.sh starts it), then one
# tool JVM that runs every rate in turn on one producer: WARMUP at the rate, then WINDOW measured.
#
# Where each figure comes from (per rate, over its window; per acknowledged record):
#   net_thread_us_per_record  /proc/<tool>/task/*/stat of the thread named kafka-producer-network-thread (clock ticks)
#   senders_us_per_record     the sending loops' thread CPU time (ThreadMXBean)
#   process_us_per_record     /proc/<tool>/stat: the tool's JVM, GC and JIT included
#   broker_us_per_record      /proc/<broker>/stat
#   batch_size_avg_bytes, records_per_request_avg, compression_rate_avg
#                             the producer's own metrics at the window's end (its samples are set to half a window, so
#                             they span about the window); the compression rate is compressed over uncompressed size
#   wire_bytes_per_record     the producer's outgoing-byte-total over the window (to the broker, after compression,
#                             with the batch and request framing)
#   ack_p50_ms, ack_p99_ms    from send() to the completion back on the sending loop (HdrHistogram)
#   refused, failed, skipped  refused at once by the sink (pending bytes full), failed later, not sent in time by a
#                             loop that fell 100 ms behind; all should be 0 when the rate was held
# Output: OUT/results.csv and OUT/results.md (one row per round and rate), each round's broker and tool output in OUT/rN.
#
#   gateway-bench/bin/producer-rate.sh [--rounds 3] [--out DIR]
#
# Environment (defaults in brackets): RATES [5000,20000,50000,80000], ROUNDS [3], WARMUP [10s], WINDOW [30s],
# SENDERS [2], DEVICES [100000], KAFKA_PARTITIONS [12], OUT [bench-results/producer-rate-<time>], PRODUCER_OPTS
# [-Xmx1g -XX:+UseG1GC] (the tool's JVM), SETTINGS (gateway config keys over the defaults, comma-separated key=value,
# e.g. "uplink.kafka.linger=5ms,uplink.kafka.compression=zstd"), KAFKA_OPTS [-Xmx1g], KAFKA_CACHE
# [~/.cache/mqttgw-bench/kafka-4.3.1]. One round takes about 20 s + rates x (WARMUP + WINDOW): 3 minutes by default.
# Needs: java; the bench build (made here if missing).
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
# stop_pid, kafka_jars, start_kafka
source "$MODULE/bin/driver-functions.sh"

ROUNDS="${ROUNDS:-3}"
OUT="${OUT:-bench-results/producer-rate-$(date -u +%Y%m%d-%H%M%S)}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
RATES="${RATES:-5000,20000,50000,80000}"
WARMUP="${WARMUP:-10s}"
WINDOW="${WINDOW:-30s}"
SENDERS="${SENDERS:-2}"
DEVICES="${DEVICES:-100000}"
KAFKA_PARTITIONS="${KAFKA_PARTITIONS:-12}"
read -r -a JVM_OPTS <<< "${PRODUCER_OPTS:--Xmx1g -XX:+UseG1GC}"
SET_ARGS=()
if [[ -n "${SETTINGS:-}" ]]; then
  IFS=',' read -r -a pairs <<< "$SETTINGS"
  for pair in "${pairs[@]}"; do SET_ARGS+=(--set "$pair"); done
fi
command -v java >/dev/null || { echo "needs java on the PATH" >&2; exit 2; }

LIB="$MODULE/target/bench/lib"
if ! compgen -G "$LIB/gateway-bridge-kafka-*.jar" >/dev/null; then
  echo "producer-rate: building $MODULE/target/bench (once) ..." >&2
  (cd "$ROOT" && ${MVN:-./mvnw} -B -q -pl gateway-bench -am package -DskipTests) >&2
fi
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"

KAFKA_PID=""
TOOL_PID=""
stop_all() {
  stop_pid "$TOOL_PID" 30
  TOOL_PID=""
  stop_pid "$KAFKA_PID" 30
  KAFKA_PID=""
}
trap stop_all EXIT
trap 'exit 130' INT TERM

kafka_jars
status=0
for round in $(seq 1 "$ROUNDS"); do
  RUN_DIR="$OUT/r$round"
  mkdir -p "$RUN_DIR"
  echo "== round $round at $(date -u +%H:%M:%SZ), load $(cut -d ' ' -f 1 /proc/loadavg): Kafka broker"
  start_kafka "$RUN_DIR/broker"
  java "${JVM_OPTS[@]}" -cp "$LIB/*" io.mqttgw.bench.producer.ProducerRate --bootstrap "127.0.0.1:$KAFKA_PORT" \
    --broker-pid "$KAFKA_PID" --rates "$RATES" --warmup "$WARMUP" --window "$WINDOW" --senders "$SENDERS" \
    --devices "$DEVICES" --partitions "$KAFKA_PARTITIONS" --round "$round" --out "$OUT" "${SET_ARGS[@]}" \
    > >(tee "$RUN_DIR/producer-rate.out") 2>&1 &
  TOOL_PID=$!
  wait "$TOOL_PID" || { echo "   round $round: the tool exited $? (see $RUN_DIR/producer-rate.out)"; status=1; }
  TOOL_PID=""
  stop_all
done
column -t -s ',' "$OUT/results.csv" 2>/dev/null || cat "$OUT/results.csv"
echo "results: $OUT/results.csv, $OUT/results.md"
exit "$status"
