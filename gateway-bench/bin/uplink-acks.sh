#!/usr/bin/env bash
# Uplink into Kafka: `uplink.kafka.acks: all` (the default, with idempotence) against `acks: 1` (the
# fast profile; the sink turns idempotence off itself for it): gateway CPU per message and PUBLISH -> PUBACK latency,
# QoS 1, through a real 3-node KRaft cluster (topic device.uplink: 3 partitions, replication 3, min.insync.replicas 2).
#
# The cluster is started once for the whole script, as child JVMs of io.mqttgw.kafka.testkit.KafkaClusterMain run
# from gateway-bridge-kafka's test class path (the script builds it offline). Then, after one unrecorded warm-up run
# (acks all; lets the brokers' JIT settle), each round runs every setting once, the order alternating between rounds
# (all,1 then 1,all ...), each run with a fresh gateway process (the distribution's `bin/gateway run`, shipped JVM
# options) and `bench publish`. Before each run the driver waits until the 1-minute load average is below MAX_LOAD (at
# most LOAD_WAIT seconds) and records it. Per run OUT/<run>/ holds gateway.yaml, gateway.out, logs/, bench/ (its
# summary.json), metrics-before.txt and metrics-after.txt; OUT/results.tsv has one line per run and OUT/summary.md one
# table with the range (min-max over rounds) per setting, for BENCHMARKS.md.
#
#   gateway-bench/bin/uplink-acks.sh [--rounds 3] [--devices 5000] [--rate 5000] [--duration 60s] [--payload 200]
#                                    [--warmup 30s] [--out DIR] [--pki-dir DIR]
#   e.g. a smoke test: gateway-bench/bin/uplink-acks.sh --rounds 1 --devices 200 --rate 500 --duration 10s --warmup 0s
#
# Environment (defaults in brackets): SOURCE [127.0.1.2-127.0.1.250], GW_PORT [18893], GW_ADMIN_PORT [18093],
# KAFKA_PORT_BASE [18900] (brokers on base to base+2, controllers on base+3 to base+5), KAFKA_JVM [-Xmx1g -Xms1g
# -XX:+UseG1GC] (each broker's JVM), KAFKA_START_TIMEOUT [300] s, RAMP_RATE [500], MAX_HANDSHAKES [200], SETTLE [3s],
# MAX_LOAD [1.5], LOAD_WAIT [600] s, SETTINGS ["all 1"] (values of uplink.kafka.acks, in round 1's order),
# GATEWAY_OPTS (extra JVM options of the gateway), GATEWAY_RUN_ARGS (extra `gateway run` arguments), GATEWAY_YAML_EXTRA
# (lines appended to every run's gateway.yaml, e.g. "uplink.kafka.linger: 5ms"), MVN [./mvnw].
# Needs: the distribution (./mvnw -B -ntp -q -o -DskipTests package), jq, curl, awk. Ctrl-C or SIGTERM stops every
# process it started (brokers, gateway, bench); the cluster also stops by itself when the script dies (its stdin closes).
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
BENCH="$MODULE/bin/bench"
GATEWAY="$ROOT/deploy/target/mqtt-gateway/bin/gateway"
TOPIC=device.uplink
# wait_port, stop_pid, metric
source "$MODULE/bin/driver-functions.sh"

ROUNDS=3
DEVICES=5000
RATE=5000
DURATION=60s
PAYLOAD=200
WARMUP=30s
OUT="bench-results/uplink-acks-$(date -u +%Y%m%d-%H%M%S)"
PKI=/tmp/uplink-acks-pki
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) ROUNDS="$2"; shift 2 ;;
    --devices) DEVICES="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --payload) PAYLOAD="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --pki-dir) PKI="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
SOURCE="${SOURCE:-127.0.1.2-127.0.1.250}"
GW_PORT="${GW_PORT:-18893}"
GW_ADMIN_PORT="${GW_ADMIN_PORT:-18093}"
KAFKA_PORT_BASE="${KAFKA_PORT_BASE:-18900}"
KAFKA_JVM="${KAFKA_JVM:--Xmx1g -Xms1g -XX:+UseG1GC}"
KAFKA_START_TIMEOUT="${KAFKA_START_TIMEOUT:-300}"
RAMP_RATE="${RAMP_RATE:-500}"
MAX_HANDSHAKES="${MAX_HANDSHAKES:-200}"
SETTLE="${SETTLE:-3s}"
MAX_LOAD="${MAX_LOAD:-1.5}"
LOAD_WAIT="${LOAD_WAIT:-600}"
SETTINGS="${SETTINGS:-all 1}"

for tool in jq curl awk java; do command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 2; }; done
[[ -x "$GATEWAY" ]] || { echo "needs the distribution: ./mvnw -B -ntp -q -o -DskipTests package" >&2; exit 2; }
for a in $SETTINGS; do
  [[ "$a" == all || "$a" == 1 || "$a" == 0 ]] || { echo "SETTINGS: '$a' is not a value of uplink.kafka.acks (all, 1, 0)" >&2; exit 2; }
done
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
[[ -f "$PKI/server.pem" ]] || "$BENCH" pki --pki-dir "$PKI"
KDIR="$OUT/kafka"
HZ="$(getconf CLK_TCK)"

# ---- processes and their cleanup (every one started here is stopped on any exit, Ctrl-C and SIGTERM included) ----
CLUSTER_PID=""
GW_PID=""
BENCH_PID=""
stop_cluster() {
  exec 9>&- 2>/dev/null || true # end of the cluster's stdin: it stops its nodes
  stop_pid "$CLUSTER_PID" 60
  CLUSTER_PID=""
  # the nodes are the cluster JVM's children; if it could not stop them, do (only a pid that still runs from KDIR)
  local f pid
  for f in "$KDIR"/node-*/broker.pid; do
    [[ -f "$f" ]] || continue
    pid="$(cat "$f")"
    if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$KDIR/"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}
cleanup() {
  trap - EXIT INT TERM
  stop_pid "$BENCH_PID" 20
  stop_pid "$GW_PID" 60
  stop_cluster
}
trap cleanup EXIT
trap 'echo "interrupted: stopping bench, gateway and brokers" >&2; exit 130' INT
trap 'exit 143' TERM

# ---- the Kafka cluster ----
start_cluster() {
  local cp="$OUT/kafka-classpath.txt"
  echo "== building gateway-bridge-kafka's test classes and class path (offline)"
  (cd "$ROOT" && ${MVN:-./mvnw} -B -ntp -q -o -pl gateway-bridge-kafka -am test-compile dependency:build-classpath \
    -Dmdep.outputFile="$cp") > "$OUT/kafka-classpath.log" 2>&1 \
    || { echo "class path build failed: $OUT/kafka-classpath.log" >&2; return 1; }
  mkdir -p "$KDIR"
  rm -f "$KDIR/ctl"
  mkfifo "$KDIR/ctl"
  echo "== starting 3 Kafka nodes in $KDIR (ports $KAFKA_PORT_BASE-$((KAFKA_PORT_BASE + 5)), broker JVM: $KAFKA_JVM)"
  java -cp "$ROOT/gateway-bridge-kafka/target/test-classes:$(cat "$cp")" io.mqttgw.kafka.testkit.KafkaClusterMain \
    "$KDIR" --nodes 3 --port-base "$KAFKA_PORT_BASE" --topic "$TOPIC" --partitions 3 --min-isr 2 \
    --jvm-options "$KAFKA_JVM" < "$KDIR/ctl" > "$KDIR/cluster.out" 2>&1 &
  CLUSTER_PID=$!
  exec 9> "$KDIR/ctl" # held until the script ends; every other child is started with 9>&-
  local t=0
  until [[ -f "$KDIR/bootstrap.servers" ]]; do
    if ! kill -0 "$CLUSTER_PID" 2>/dev/null || (( t >= KAFKA_START_TIMEOUT )); then
      echo "the Kafka cluster did not start in ${t} s:" >&2
      tail -n 40 "$KDIR/cluster.out" >&2
      return 1
    fi
    sleep 1
    t=$((t + 1))
  done
  BOOTSTRAP="$(cat "$KDIR/bootstrap.servers")"
  echo "   $(cat "$KDIR/cluster.out") (${t} s)"
}

brokers_cpu_seconds() { # user + system CPU of the three broker JVMs
  local f total=0 ticks
  for f in "$KDIR"/node-*/broker.pid; do
    ticks="$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$(cat "$f")/stat" 2>/dev/null || echo 0)"
    total=$((total + ticks))
  done
  awk -v t="$total" -v hz="$HZ" 'BEGIN { printf "%.2f", t / hz }'
}

# ---- one run: fresh gateway, bench publish, metrics ----
start_gateway() { # dir acks
  local dir="$1" acks="$2"
  cat > "$dir/gateway.yaml" <<YAML
node.id: acks-bench-gw
listener.tls.bind: 127.0.0.1
listener.tls.port: $GW_PORT
listener.tls.cert-file: $PKI/server.pem
listener.tls.key-file: $PKI/server.key
listener.tls.ca-file: $PKI/ca.pem
uplink.sink: kafka
uplink.kafka.bootstrap-servers: $BOOTSTRAP
uplink.kafka.default-topic: $TOPIC
uplink.kafka.acks: "$acks"
admin.bind: 127.0.0.1
admin.port: $GW_ADMIN_PORT
log.lifecycle-rate: 5
${GATEWAY_YAML_EXTRA:-}
YAML
  # shipped defaults apart from ports, files, the sink and acks; the pid is the JVM's (the launcher execs it)
  GATEWAY_LOG_DIR="$dir/logs" JAVA_OPTS="${GATEWAY_OPTS:-}" "$GATEWAY" run ${GATEWAY_RUN_ARGS:-} \
    --config "$dir/gateway.yaml" > "$dir/gateway.out" 2>&1 9>&- &
  GW_PID=$!
  wait_port "$GW_PORT"
  for _ in $(seq 1 60); do
    curl -sf "http://127.0.0.1:$GW_ADMIN_PORT/metrics" > "$dir/metrics-before.txt" && return 0
    sleep 0.5
  done
  echo "the gateway's /metrics did not answer" >&2
  return 1
}

metric_delta() { # name label-filter dir
  echo $(( $(metric "$1" "$2" "$3/metrics-after.txt") - $(metric "$1" "$2" "$3/metrics-before.txt") ))
}
histogram_quantile_ms() { # name q file: upper bound (le) of the bucket holding quantile q, in ms
  awk -v n="$1_bucket" -v q="$2" '$1 ~ "^"n"{" {
      le = $1; sub(/.*le="/, "", le); sub(/".*/, "", le); c[++k] = $2; b[k] = le }
    END { if (k == 0 || c[k] == 0) { print "n/a"; exit }
          for (i = 1; i <= k; i++) if (c[i] >= q * c[k]) { if (b[i] == "+Inf") print "inf"; else printf "%.1f", b[i] * 1000; exit } }' "$3"
}

wait_quiet() { # prints the seconds waited
  local waited=0
  while awk -v m="$MAX_LOAD" '{ exit !($1 >= m) }' /proc/loadavg && (( waited < LOAD_WAIT )); do
    sleep 5
    waited=$((waited + 5))
  done
  echo "$waited"
}

run_once() { # name acks duration -> OUT/<name>/
  local name="$1" acks="$2" duration="$3" dir="$OUT/$1"
  mkdir -p "$dir"
  local waited load utc
  waited="$(wait_quiet)"
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  utc="$(date -u +%H:%M:%SZ)"
  echo "== $name: acks $acks at $utc, load $load (waited ${waited} s)"
  start_gateway "$dir" "$acks"
  local bcpu0 bcpu1
  bcpu0="$(brokers_cpu_seconds)"
  "$BENCH" publish --devices "$DEVICES" --pki-dir "$PKI" --source "$SOURCE" --port "$GW_PORT" \
    --admin "127.0.0.1:$GW_ADMIN_PORT" --gateway-pid "$GW_PID" --ramp-rate "$RAMP_RATE" \
    --max-handshakes "$MAX_HANDSHAKES" --rate "$RATE" --qos 1 --payload "$PAYLOAD" --duration "$duration" \
    --settle "$SETTLE" --out "$dir/bench" > "$dir/bench.out" 2>&1 9>&- &
  BENCH_PID=$!
  wait "$BENCH_PID" || echo "   bench exited $? (see $dir/bench.out)"
  BENCH_PID=""
  bcpu1="$(brokers_cpu_seconds)"
  curl -sf "http://127.0.0.1:$GW_ADMIN_PORT/metrics" > "$dir/metrics-after.txt" || : > "$dir/metrics-after.txt"
  stop_pid "$GW_PID" 60
  GW_PID=""
  RUN_DIR="$dir" RUN_ACKS="$acks" RUN_UTC="$utc" RUN_LOAD="$load" RUN_WAITED="$waited"
  RUN_BROKERS_CPU="$(awk -v a="$bcpu0" -v b="$bcpu1" 'BEGIN { printf "%.2f", b - a }')"
}

COLUMNS_TSV='round	acks	logged_acks_idempotence	start_utc	load_1_5_15	waited_s	offered_per_s	sent_per_s	pubacked_per_s	kafka_acked_per_s	gw_cpu_s	gw_cpu_us_per_msg	msgs_per_core_s	puback_p50_ms	puback_p99_ms	puback_p999_ms	puback_max_ms	puback_sampled	kafka_acked	kafka_failed	kafka_ack_p50_ms_le	kafka_ack_p99_ms_le	brokers_cpu_s_whole_run	sink_failed_closes	bench_ok	bench_problems'
result_line() { # round: one line of results.tsv from RUN_*
  local round="$1" dir="$RUN_DIR" s="$RUN_DIR/bench/summary.json"
  local logged kacked kfailed sinkfail kp50 kp99
  # what the gateway actually ran with: the sink's startup line and the producer's own configuration dump
  logged="$(cat "$dir"/logs/*.log "$dir/gateway.out" 2>/dev/null | awk '
    /Kafka uplink ready:/ && !a { a = $0; sub(/.*, acks /, "", a); sub(/,.*/, "", a) }
    /enable.idempotence = / && !i { i = $NF }
    END { printf "%s/%s", (a == "" ? "?" : a), (i == "" ? "?" : i) }' || true)"
  if [[ -s "$dir/metrics-after.txt" ]]; then
    kacked="$(metric_delta mqttgw_kafka_records_acknowledged_total '' "$dir")"
    kfailed="$(metric_delta mqttgw_kafka_records_failed_total '' "$dir")"
    sinkfail="$(metric_delta mqttgw_disconnects_total 'reason="sink_failed"' "$dir")"
    kp50="$(histogram_quantile_ms mqttgw_kafka_ack_latency_seconds 0.5 "$dir/metrics-after.txt")"
    kp99="$(histogram_quantile_ms mqttgw_kafka_ack_latency_seconds 0.99 "$dir/metrics-after.txt")"
  else
    kacked=n/a; kfailed=n/a; sinkfail=n/a; kp50=n/a; kp99=n/a
  fi
  if [[ -f "$s" ]] && jq -e .publish "$s" >/dev/null 2>&1; then
    jq -r --arg round "$round" --arg acks "$RUN_ACKS" --arg logged "${logged:-?}" --arg utc "$RUN_UTC" \
      --arg load "$RUN_LOAD" --arg waited "$RUN_WAITED" --arg kacked "$kacked" --arg kfailed "$kfailed" \
      --arg kp50 "$kp50" --arg kp99 "$kp99" --arg bcpu "$RUN_BROKERS_CPU" --arg sinkfail "$sinkfail" '
      def r(n): . * n | round / n;
      .publish as $p | [$round, $acks, $logged, $utc, $load, $waited, $p.targetRate,
       ($p.published / $p.seconds | r(10)), ($p.acked / $p.seconds | r(10)),
       (if ($kacked | test("^[0-9]+$")) then ($kacked | tonumber) / $p.seconds | r(10) else "n/a" end),
       ($p.gatewayCpuSeconds | r(100)), ($p.gatewayCpuMicrosPerMessage | r(10)),
       (if $p.gatewayCpuMicrosPerMessage > 0 then 1e6 / $p.gatewayCpuMicrosPerMessage | round else "n/a" end),
       ($p.ackLatencyMs.p50 | r(100)), ($p.ackLatencyMs.p99 | r(100)), ($p.ackLatencyMs.p999 | r(100)),
       ($p.ackLatencyMs.max | r(100)), $p.ackLatencyMs.count, $kacked, $kfailed, $kp50, $kp99, $bcpu, $sinkfail,
       .ok, (.problems | join("; "))] | @tsv' "$s"
  else
    printf '%s\t%s\t%s\t%s\t%s\t%s\tno publish summary (see %s)\n' "$round" "$RUN_ACKS" "${logged:-?}" "$RUN_UTC" \
      "$RUN_LOAD" "$RUN_WAITED" "$dir/bench.out"
  fi
}

# ---- summary.md: one table, min-max over the rounds per setting ----
write_summary() {
  local jdk commit
  jdk="$(java -version 2>&1 | head -n 1)"
  commit="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  {
    echo "Uplink into a 3-node KRaft Kafka cluster (topic $TOPIC: 3 partitions, replication 3, min.insync.replicas 2),"
    echo "QoS 1, $DEVICES devices, $RATE msgs/s offered, $PAYLOAD B payload, $DURATION per run, $ROUNDS round(s) alternating"
    echo "the settings, a fresh gateway per run; range = min-max over the rounds. Commit $commit, $jdk, $(nproc) cores,"
    echo "brokers \`$KAFKA_JVM\`, first run $(date -u +%Y-%m-%d) $(head -n 2 "$OUT/results.tsv" | tail -n 1 | cut -f4)."
    echo
    echo "| acks | runs | sent msgs/s | PUBACKed msgs/s | Kafka acked msgs/s | gateway CPU-s | **CPU µs / msg** | **msgs/s per gateway core** | PUBACK p50 ms | PUBACK p99 ms | PUBACK p999 ms | Kafka ack p99 ms (bucket ≤) | Kafka acked / failed | brokers CPU-s (whole run) | load 1-min at start |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"
    awk -F '\t' -v settings="$SETTINGS" '
      function put(k, c, v) { if (v == "" || v == "n/a" || v !~ /^-?[0-9.]+$/) return;
        v += 0; if (!((k, c) in lo) || v < lo[k, c]) lo[k, c] = v; if (!((k, c) in hi) || v > hi[k, c]) hi[k, c] = v }
      function range(k, c, fmt) { if (!((k, c) in lo)) return "n/a"
        a = sprintf(fmt, lo[k, c]); b = sprintf(fmt, hi[k, c]); return a == b ? a : a "-" b }
      NR > 1 && $7 != "" && $7 ~ /^[0-9]/ {
        k = $2; runs[k]++
        put(k, 8, $8); put(k, 9, $9); put(k, 10, $10); put(k, 11, $11); put(k, 12, $12); put(k, 13, $13)
        put(k, 14, $14); put(k, 15, $15); put(k, 16, $16); put(k, 22, $22); put(k, 23, $23)
        split($5, l, " "); put(k, 5, l[1])
        acked[k] += $19; failed[k] += $20 }
      NR > 1 && !($7 ~ /^[0-9]/) { bad[$2]++ }
      END { n = split(settings, s, " ")
        for (i = 1; i <= n; i++) { k = s[i]
          printf "| %s | %d%s | %s | %s | %s | %s | **%s** | **%s** | %s | %s | %s | %s | %d / %d | %s | %s |\n",
            (k == "all" ? "all (idempotent, default)" : k), runs[k], (bad[k] ? " (+" bad[k] " failed)" : ""),
            range(k, 8, "%.0f"), range(k, 9, "%.0f"), range(k, 10, "%.0f"), range(k, 11, "%.2f"),
            range(k, 12, "%.1f"), range(k, 13, "%.0f"), range(k, 14, "%.2f"), range(k, 15, "%.2f"),
            range(k, 16, "%.2f"), range(k, 22, "%.1f"), acked[k], failed[k], range(k, 23, "%.2f"), range(k, 5, "%.2f") } }
    ' "$OUT/results.tsv"
    echo
    echo "Per run: results.tsv. CPU µs / msg = gateway CPU-s over the publish phase (start of publishing to the end of"
    echo "the drain) / PUBLISHes the gateway counted; PUBACK latency from the bench (write of a PUBLISH to its PUBACK, over"
    echo "TLS); Kafka ack = the gateway's send-to-acknowledgement timer (upper bound of its histogram bucket); brokers"
    echo "CPU-s = the three broker JVMs over the whole bench run (ramp included). Kafka acked / failed summed over the runs."
  } > "$OUT/summary.md"
}

# ---- main ----
start_cluster
printf '%s\n' "$COLUMNS_TSV" > "$OUT/results.tsv"
if [[ "$WARMUP" != 0 && "$WARMUP" != 0s ]]; then
  run_once warmup-acks-all all "$WARMUP"
  echo "   warm-up done (not recorded): $(jq -r '.publish | "\(.published) sent, \(.acked) acked"' \
    "$OUT/warmup-acks-all/bench/summary.json" 2>/dev/null || echo "no summary")"
fi
read -r -a ORDER <<< "$SETTINGS"
for round in $(seq 1 "$ROUNDS"); do
  settings=("${ORDER[@]}")
  if (( round % 2 == 0 )); then # alternate which setting goes first, so neither always runs on a fresher machine
    settings=()
    for ((i = ${#ORDER[@]} - 1; i >= 0; i--)); do settings+=("${ORDER[i]}"); done
  fi
  for acks in "${settings[@]}"; do
    run_once "r$round-acks-$acks" "$acks" "$DURATION"
    result_line "$round" >> "$OUT/results.tsv"
    tail -n 1 "$OUT/results.tsv" | cut -f1-3,7-18
  done
done
write_summary
echo "results: $OUT/results.tsv, $OUT/summary.md"
cat "$OUT/summary.md"
