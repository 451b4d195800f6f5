#!/usr/bin/env bash
# A fleet on one machine: Redis, N gateway nodes sharing it (routes, persistent sessions, TLS ticket keys), and the
# bench as the L4 balancer in front of them (`bench fleet --nodes`), at the field traffic (heartbeat 20 B / 15 s QoS 1,
# status 500 B / 60 s QoS 1, PINGREQ / 120 s; all divided by TIME_SCALE).
#
#   --scenario kill     once the devices are steady, `kill -9` the last node; the bench times until every device of
#                       that node has a CONNACK from another node, counts failed attempts (what devices saw) and
#                       refused connects it redispatched (what the balancer saw), the resumed share (TLS resumption
#                       with the shared ticket keys), session present on return, collateral drops on the survivors
#                       (target 0) and PINGRESP latency during the wave; meanwhile this script reads Redis every second
#                       from the kill until the dead node's route index and heartbeat are gone (column routes_gone_s,
#                       from the kill).
#   --scenario rolling  restarts every node in turn: SIGTERM (the node drains: ready 503 for shutdown.ready-grace,
#                       then closes its devices at shutdown.drain-rate), wait for its exit, start it again, wait for
#                       /health/ready 200; failed attempts, QoS 1 PUBLISHes whose connection ended before their PUBACK
#                       (qos1_unacked), total time.
#   --scenario redis-kill  as kill, and 1 s before it `kill -9` of the Redis master, so the wave's route and session
#                       writes meet the failover under way (REDIS_MODE sentinel or cluster; HOLD in seconds). Each node's /metrics is sampled
#                       every 0.5 s: redis_write_outage_s is the longest a node had route work pending and Redis
#                       answered none of it, from the master kill (the worst node); resynced counts the routes the nodes wrote
#                       again after the failover (what the old master had acknowledged and the new one lacked).
#   --scenario kafka-outage  (SINK=kafka) once the devices are steady, all of Kafka goes away for KAFKA_OUTAGE, then
#                       comes back, while the devices keep publishing QoS 1. KAFKA_OUTAGE_MODE kill (the default) is
#                       `kill -9` of the broker and a restart from the same log dir: a crash, connections refused, the
#                       producer loses its metadata, and the restart's log recovery must keep what was acknowledged;
#                       stop is `kill -STOP` and `kill -CONT`: a hung broker whose sockets stay open and whose
#                       requests time out. Each node's /metrics is sampled every second: peak_heap_mb (the largest
#                       heap used by any node from the outage to the end of the hold; heap_before_mb before it),
#                       outage_disconnects (devices the nodes closed in that time: target 0), kafka_back_s (from the restart to the broker accepting),
#                       uplink_flow_s (from then to the first record Kafka acknowledged again), and from the bench's
#                       per-second lines puback_p99_before_ms and puback_p99_after_ms (the largest per-second PUBACK p99
#                       before the outage, and from 10 s after uplink flows again to the end of the hold),
#                       peak_pending_mb (the largest charge of one node against max-pending-bytes from the outage on)
#                       and kafka_failed (records the nodes refused or failed in that window, all causes).
#   --scenario redis-outage  (REDIS_MODE standalone) once the devices are steady, Redis goes away for REDIS_OUTAGE and
#                       the last node is killed (`kill -9`) at the same moment, so its devices connect to the survivors
#                       while Redis is down; the devices keep publishing QoS 1 throughout. REDIS_OUTAGE_MODE kill (the
#                       default) is `kill -9` of redis-server and a fresh, empty one started on the same port (the nodes
#                       must write every route and the connected devices' sessions again); stop is `kill -STOP` and
#                       `kill -CONT` (a hung Redis, data kept). From the bench's per-second lines during the outage:
#                       outage_failed_attempts (target 0) and outage_acked (QoS 1 PUBACKs the devices received); from
#                       the nodes' /metrics sampled every second: outage_connects (CONNACKs accepted during it),
#                       peak_route_work (each node's largest route work waiting for Redis, queued and taken by the
#                       flusher, "-" for the killed node; against route_queue_capacity), outage_disconnects (devices the
#                       survivors closed from the outage to the end of the hold: target 0), route_drain_s (from Redis's
#                       return until no node had route work left), resynced and sessions_rewritten (routes and sessions
#                       the survivors wrote again), sessions_in_redis (persistent sessions in Redis once the fleet is
#                       back: with CLEAN_SESSION=false, DEVICES when every connected device's session was rewritten).
# Every scenario: each node's /metrics is sampled every second, and from the devices' steady state on,
# survivor_overload_transitions counts the times a survivor (a node not killed, and outside its own restart in
# rolling) entered or left overload and survivor_listener_closes the times its device listeners were seen closed
# (target 0 for both: no listener flap). Once the scenario's disruption is over and every device is connected again
# with no route work queued, `POST /routes/verify` runs on every live node while the bench still holds the devices:
# verify_found sums the differences (target 0), verify_when is "back" (or "after-bench" when the fleet was not back
# before the bench ended, then checked without its devices; ",incomplete" when a check ran out of time, ",node-I-failed"
# when node I's did not answer 200).
# SINK=kafka (default discard) starts one real Kafka broker per round (KRaft, combined broker and controller, free
# ports, its log dir in OUT/rN/kafka, jars resolved once with the Maven wrapper into KAFKA_CACHE), creates the uplink
# topic (KAFKA_PARTITIONS) and points every node's uplink sink at it (acks all; delivery-timeout above the outage).
# The bench then numbers every QoS 1 payload per device and writes which numbers were PUBACKed (`--sequence-file`);
# after the round the topic is read back: kafka_acked counts the (device, number) pairs the devices had PUBACKs for,
# kafka_acked_missing those of them not in Kafka (target 0), kafka_records the records read. Works with kill too
# (node loss with QoS 1 into Kafka). Needs CLEAN_SESSION=false (a clean session gives unacknowledged messages up).
# In all, a device with a persistent session resends its unacknowledged QoS 1 PUBLISHes after it reconnects
# (qos1_resent); qos1_lost counts those never acknowledged by the end of the run (target 0).
#
# Every round starts a fresh Redis and fresh nodes. Figures go to OUT/results.tsv (one line per round), their ranges
# over the rounds to OUT/summary.tsv and OUT/index.html (which links each round's bench report: connections per node
# over time, reconnects per second, failures by reason). Each round's nodes, logs and bench output are in OUT/rN/.
#
#   gateway-bench/bin/fleet-node-kill.sh [--nodes 3] [--devices 1800] [--rounds 3]
#                                        [--scenario kill|rolling|redis-kill|kafka-outage|redis-outage] [--out DIR]
#                                        [--pki-dir DIR] [--dist DIR]
#
# Environment (defaults in brackets): BASE_PORT [18831] (node i listens on BASE_PORT + i), BASE_ADMIN [19091],
# REDIS_PORT [16379], SOURCE [127.0.2.2-127.0.2.250], RAMP_RATE [300], MAX_HANDSHAKES [200], PER_WORKER [9000]
# (devices per bench worker process: at most ~19,000 sockets per process here), HOLD [20s] (steady state before the
# kill or the first restart), TIME_SCALE [1], BALANCE [least-conn] (or hash), CLEAN_SESSION [false] (persistent
# sessions: session present on return is measured), RESUME [true], HEARTBEAT [5s] and NODE_TTL [30s]
# (routes.redis.heartbeat-interval and node-ttl), READY_GRACE [3s] (shutdown.ready-grace: above the bench's 1 s
# health interval), DRAIN_RATE [2000] (shutdown.drain-rate), MQTT_VERSION [3.1.1], GATEWAY_OPTS (JVM options of the
# nodes, e.g. -Xmx2g), GATEWAY_RUN_ARGS (extra `gateway run` arguments, e.g. "--profile density --connections 19000"),
# WORKER_JVM (the bench's --worker-jvm), RECOVER_TIMEOUT [180s], REDIS_MODE [standalone] (or sentinel: a master, a
# replica and 3 sentinels on REDIS_PORT, +1 and +10..12; or cluster: 3 masters and 3 replicas on REDIS_PORT..+5,
# with cluster-require-full-coverage no, as the README recommends), OPEN_TIMEOUT [3s] (session.open-timeout: how long a
# reconnecting device waits for its stored session while Redis fails over), SINK [discard] (or kafka),
# KAFKA_OUTAGE [60s], KAFKA_OUTAGE_MODE [kill] (or stop), KAFKA_AFTER [60s] (hold after the outage: the
# broker's restart, 10-30 s, counts against it),
# KAFKA_MAX_PENDING [the shipped uplink.kafka.max-pending-bytes] (set it low, e.g. 2MiB, for an outage that fills
# it: past it a device's QoS 1 PUBLISH is held and its reading paused until there is room, its PUBACK waiting),
# KAFKA_PARTITIONS [12], KAFKA_OPTS [-Xmx1g] (the broker's JVM), KAFKA_CACHE [~/.cache/mqttgw-bench/kafka-4.3.1].
# With kafka-outage the bench holds HOLD + KAFKA_OUTAGE + KAFKA_AFTER. REDIS_OUTAGE [60s], REDIS_OUTAGE_MODE [kill] (or
# stop), REDIS_AFTER [30s] (hold after the outage: the route check runs in it), ROUTE_QUEUE_CAPACITY [262144]
# (routes.redis.queue-capacity); with redis-outage the bench holds HOLD + REDIS_OUTAGE + REDIS_AFTER.
# Needs: the distribution (./mvnw -DskipTests package), Debian's redis-server and redis-tools
# (apt-get install -y redis-server redis-tools), jq, curl.
set -euo pipefail
MODULE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(dirname "$MODULE")"
BENCH="$MODULE/bin/bench"
# wait_port, stop_pid, metric, seconds, kafka_jars, start_kafka, launch_kafka, KAFKA_JAVA, kafka_sink_config
source "$MODULE/bin/driver-functions.sh"
# fleet_figures, survivor_flaps, verify_when_back, outage_bench_figures, outage_node_figures
source "$MODULE/bin/fleet-checks.sh"

NODES=3
DEVICES=1800
ROUNDS=3
SCENARIO=kill
OUT="bench-results/fleet-$(date -u +%Y%m%d-%H%M%S)"
PKI=/tmp/fleet-pki
DIST="$ROOT/deploy/target/mqtt-gateway"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) NODES="$2"; shift 2 ;;
    --devices) DEVICES="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --scenario) SCENARIO="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    --pki-dir) PKI="$2"; shift 2 ;;
    --dist) DIST="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ "$SCENARIO" =~ ^(kill|rolling|redis-kill|kafka-outage|redis-outage)$ ]] \
  || { echo "--scenario is kill, rolling, redis-kill, kafka-outage or redis-outage" >&2; exit 2; }
[[ "$NODES" =~ ^[0-9]+$ ]] && ((NODES >= 2)) || { echo "--nodes needs at least 2" >&2; exit 2; }
BASE_PORT="${BASE_PORT:-18831}"
BASE_ADMIN="${BASE_ADMIN:-19091}"
REDIS_PORT="${REDIS_PORT:-16379}"
SOURCE="${SOURCE:-127.0.2.2-127.0.2.250}"
RAMP_RATE="${RAMP_RATE:-300}"
MAX_HANDSHAKES="${MAX_HANDSHAKES:-200}"
PER_WORKER="${PER_WORKER:-9000}"
HOLD="${HOLD:-20s}"
TIME_SCALE="${TIME_SCALE:-1}"
BALANCE="${BALANCE:-least-conn}"
CLEAN_SESSION="${CLEAN_SESSION:-false}"
RESUME="${RESUME:-true}"
HEARTBEAT="${HEARTBEAT:-5s}"
NODE_TTL="${NODE_TTL:-30s}"
READY_GRACE="${READY_GRACE:-3s}"
DRAIN_RATE="${DRAIN_RATE:-2000}"
MQTT_VERSION="${MQTT_VERSION:-3.1.1}"
RECOVER_TIMEOUT="${RECOVER_TIMEOUT:-180s}"
REDIS_MODE="${REDIS_MODE:-standalone}"
OPEN_TIMEOUT="${OPEN_TIMEOUT:-3s}"
SINK="${SINK:-discard}"
KAFKA_OUTAGE="${KAFKA_OUTAGE:-60s}"
KAFKA_OUTAGE_MODE="${KAFKA_OUTAGE_MODE:-kill}"
KAFKA_AFTER="${KAFKA_AFTER:-60s}"
KAFKA_PARTITIONS="${KAFKA_PARTITIONS:-12}"
REDIS_OUTAGE="${REDIS_OUTAGE:-60s}"
REDIS_OUTAGE_MODE="${REDIS_OUTAGE_MODE:-kill}"
REDIS_AFTER="${REDIS_AFTER:-30s}"
ROUTE_QUEUE_CAPACITY="${ROUTE_QUEUE_CAPACITY:-262144}"
[[ "$SINK" =~ ^(discard|kafka)$ ]] || { echo "SINK is discard or kafka" >&2; exit 2; }
[[ "$KAFKA_OUTAGE_MODE" =~ ^(kill|stop)$ ]] || { echo "KAFKA_OUTAGE_MODE is kill or stop" >&2; exit 2; }
[[ "$SCENARIO" != kafka-outage || "$SINK" == kafka ]] || { echo "--scenario kafka-outage needs SINK=kafka" >&2; exit 2; }
# a clean-session device gives its unacknowledged messages up, which the check against Kafka would take as acknowledged
[[ "$SINK" != kafka || "$CLEAN_SESSION" == false ]] || { echo "SINK=kafka needs CLEAN_SESSION=false" >&2; exit 2; }
[[ "$REDIS_MODE" =~ ^(standalone|sentinel|cluster)$ ]] || { echo "REDIS_MODE is standalone, sentinel or cluster" >&2; exit 2; }
[[ "$SCENARIO" != redis-kill || "$REDIS_MODE" != standalone ]] \
  || { echo "--scenario redis-kill needs REDIS_MODE sentinel or cluster (a replica to fail over to)" >&2; exit 2; }
[[ "$SCENARIO" != redis-outage || "$REDIS_MODE" == standalone ]] \
  || { echo "--scenario redis-outage needs REDIS_MODE standalone (the whole of Redis goes away)" >&2; exit 2; }
[[ "$REDIS_OUTAGE_MODE" =~ ^(kill|stop)$ ]] || { echo "REDIS_OUTAGE_MODE is kill or stop" >&2; exit 2; }
WORKER_ARGS=()
[[ -n "${WORKER_JVM:-}" ]] && WORKER_ARGS=(--worker-jvm "$WORKER_JVM")

command -v jq >/dev/null || { echo "needs jq: apt-get install -y jq" >&2; exit 2; }
command -v curl >/dev/null || { echo "needs curl: apt-get install -y curl" >&2; exit 2; }
REDIS_SERVER="$(command -v redis-server || echo /usr/bin/redis-server)"
[[ -x "$REDIS_SERVER" ]] && command -v redis-cli >/dev/null \
  || { echo "needs redis-server and redis-cli: apt-get install -y redis-server redis-tools" >&2; exit 2; }
[[ -x "$DIST/bin/gateway" ]] || { echo "needs the distribution: ./mvnw -DskipTests package" >&2; exit 2; }
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
[[ -f "$PKI/server.pem" ]] || "$BENCH" pki --pki-dir "$PKI"

REDIS_PIDS=()
RUN_DIR=""
KAFKA_PID=""
stop_all() { # every node of the current round (their pids are in files: a rolling restart replaces them), Redis, Kafka
  if [[ -n "$RUN_DIR" ]]; then
    for f in "$RUN_DIR"/node-*/pid; do
      [[ -f "$f" ]] && stop_pid "$(cat "$f")" 60
    done
  fi
  for pid in "${REDIS_PIDS[@]}"; do
    kill -CONT "$pid" 2>/dev/null || true  # a Redis stopped by redis-outage would not act on SIGTERM
    stop_pid "$pid" 10
  done
  REDIS_PIDS=()
  local job
  for job in "${watcher:-}" "${sampler:-}" "${fleet_sampler:-}" "${verifier:-}"; do
    [[ -z "$job" ]] || kill "$job" 2>/dev/null || true
  done
  watcher=""; sampler=""; fleet_sampler=""; verifier=""
  if [[ -n "$KAFKA_PID" ]]; then
    kill -CONT "$KAFKA_PID" 2>/dev/null || true
    stop_pid "$KAFKA_PID" 30
    KAFKA_PID=""
  fi
}
trap stop_all EXIT

# redis ARGS: a command to the master (the sentinels' current one; in cluster mode any node, following redirects)
redis() {
  if [[ "$REDIS_MODE" == cluster ]]; then
    redis-cli -c -p "$(cluster_entry)" "$@"
  else
    redis-cli -p "$(redis_master_port)" "$@"
  fi
}

cluster_entry() { # a cluster node that answers (the first one may be the master this scenario killed)
  local k
  for k in 0 1 2 3 4 5; do
    redis-cli -p $((REDIS_PORT + k)) PING > /dev/null 2>&1 && { echo $((REDIS_PORT + k)); return; }
  done
  echo "$REDIS_PORT"
}

redis_master_port() {
  if [[ "$REDIS_MODE" == sentinel ]]; then
    redis-cli -p $((REDIS_PORT + 10)) SENTINEL get-master-addr-by-name mqttgw | sed -n 2p
  else
    echo "$REDIS_PORT"
  fi
}

# redis_server DIR PORT ARGS...: one redis-server without persistence (a fresh, empty Redis every round); its pid is
# REDIS_PIDS[PORT - REDIS_PORT]
redis_server() {
  local dir="$1" port="$2"
  shift 2
  mkdir -p "$dir"
  "$REDIS_SERVER" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --logfile "$dir/redis.log" --daemonize no "$@" > "$dir/redis.out" 2>&1 &
  REDIS_PIDS[$((port - REDIS_PORT))]=$!
  disown  # stop_pid polls; the shell need not report the master this scenario kills
  wait_port "$port"
}

start_redis() { # DIR
  case "$REDIS_MODE" in
    standalone)
      redis_server "$1" "$REDIS_PORT" ;;
    sentinel)
      redis_server "$1/redis-master" "$REDIS_PORT"
      redis_server "$1/redis-replica" $((REDIS_PORT + 1)) --replicaof 127.0.0.1 "$REDIS_PORT"
      for k in 0 1 2; do
        local d="$1/sentinel-$k"
        mkdir -p "$d"
        printf '%s\n' "port $((REDIS_PORT + 10 + k))" "bind 127.0.0.1" "dir $d" \
          "sentinel monitor mqttgw 127.0.0.1 $REDIS_PORT 2" "sentinel down-after-milliseconds mqttgw 2000" \
          "sentinel failover-timeout mqttgw 10000" "sentinel parallel-syncs mqttgw 1" > "$d/sentinel.conf"
        "$REDIS_SERVER" "$d/sentinel.conf" --sentinel > "$d/sentinel.out" 2>&1 &
        REDIS_PIDS[$((10 + k))]=$!
        disown
        wait_port $((REDIS_PORT + 10 + k))
      done
      # a failover needs every sentinel to know the replica and the two others (hello messages every 2 s)
      for _ in $(seq 1 60); do
        local ready=0
        for k in 0 1 2; do
          [[ "$(redis-cli -p $((REDIS_PORT + 10 + k)) SENTINEL master mqttgw | paste - - | awk -F'\t' \
            '$1 == "num-slaves" || $1 == "num-other-sentinels" { printf "%s/", $2 }')" == 1/2/ ]] && ready=$((ready + 1))
        done
        ((ready == 3)) && break
        sleep 1
      done ;;
    cluster)
      local seeds=()
      for k in 0 1 2 3 4 5; do
        redis_server "$1/redis-$k" $((REDIS_PORT + k)) --cluster-enabled yes \
          --cluster-config-file "$1/redis-$k/nodes.conf" --cluster-node-timeout 2000 \
          --cluster-require-full-coverage no --cluster-replica-validity-factor 0
        seeds+=("127.0.0.1:$((REDIS_PORT + k))")
      done
      redis-cli --cluster create "${seeds[@]}" --cluster-replicas 1 --cluster-yes > "$1/cluster-create.out" 2>&1
      for _ in $(seq 1 60); do
        redis-cli -p "$REDIS_PORT" CLUSTER INFO | grep -q 'cluster_state:ok' && break
        sleep 1
      done ;;
  esac
}

# kill_redis_master: kill -9 of the master the nodes write to (cluster: the master of slot 0); prints its port
kill_redis_master() {
  local port
  if [[ "$REDIS_MODE" == cluster ]]; then
    port="$(redis-cli -p "$REDIS_PORT" CLUSTER NODES \
      | awk '$3 ~ /master/ && $3 !~ /fail/ && $9 ~ /^0-/ { split($2, a, "[:@]"); print a[2] }')"
  else
    port="$(redis_master_port)"
  fi
  kill -9 "${REDIS_PIDS[$((port - REDIS_PORT))]}"
  echo "$port"
}

redis_address() {
  case "$REDIS_MODE" in
    standalone) echo "redis://127.0.0.1:$REDIS_PORT" ;;
    sentinel) echo "redis://127.0.0.1:$((REDIS_PORT + 10)),redis://127.0.0.1:$((REDIS_PORT + 11)),redis://127.0.0.1:$((REDIS_PORT + 12))" ;;
    cluster) echo "redis://127.0.0.1:$REDIS_PORT,redis://127.0.0.1:$((REDIS_PORT + 1)),redis://127.0.0.1:$((REDIS_PORT + 2))" ;;
  esac
}

# sink_config: the nodes' uplink sink lines of gateway.yaml
sink_config() {
  if [[ "$SINK" == kafka ]]; then
    # a record waits for Kafka this long before it fails (and its device is closed to resend): above the outage
    kafka_sink_config
    echo "uplink.kafka.delivery-timeout: $(($(seconds "$KAFKA_OUTAGE") + 60))s"
    [[ -z "${KAFKA_MAX_PENDING:-}" ]] || echo "uplink.kafka.max-pending-bytes: $KAFKA_MAX_PENDING"
  else
    echo "uplink.sink: discard"
  fi
}

# sample_nodes FILE INTERVAL FIGURES: every INTERVAL seconds, per node that answers "epoch_ms node" and what the function
# FIGURES prints from that node's /metrics text, until killed
sample_nodes() {
  while :; do
    local now i m
    now="$(date +%s%3N)"
    for i in $(seq 0 $((NODES - 1))); do
      m="$(curl -s -m 1 "http://127.0.0.1:$((BASE_ADMIN + i))/metrics" || true)"
      [[ -n "$m" ]] || continue
      printf '%s %s %s\n' "$now" "$i" "$("$3" "$m")"
    done >> "$1"
    sleep "$2"
  done
}

# kafka_figures METRICS: "heap_bytes disconnects records_acknowledged pending_bytes records_failed" (sampled every
# second with kafka-outage)
kafka_figures() {
  # the value is the last field: a memory pool's label (id="G1 Eden Space") has spaces
  echo "$1" | awk '
    /^jvm_memory_used_bytes\{/ && /area="heap"/ { h += $NF }
    /^mqttgw_disconnects_total[{ ]/ { d += $NF }
    /^mqttgw_kafka_records_acknowledged_total[{ ]/ { a += $NF }
    /^mqttgw_kafka_pending_bytes[{ ]/ { p += $NF }
    /^mqttgw_kafka_records_failed_total[{ ]/ { f += $NF }
    END { printf "%.0f %.0f %.0f %.0f %.0f", h, d, a, p, f }'
}

# bench_t: the run time of the bench's last per-second line (seconds since its start)
bench_t() {
  grep -o '^\[ *[0-9.]*s\]' "$RUN_DIR/bench.out" | tail -n 1 | tr -d '[]s '
}

# kafka_check ACKED-FILES-PREFIX RECORDS: reads the uplink topic back; prints "acked missing records": the (device,
# number) pairs the devices had PUBACKs for, those of them not in Kafka (the first 20 listed in kafka-missing.txt),
# and the records read
kafka_check() {
  "${KAFKA_JAVA[@]}" org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "127.0.0.1:$KAFKA_PORT" \
    --topic "$KAFKA_TOPIC" --from-beginning --timeout-ms 30000 --property print.key=true \
    --property key.separator=' ' 2> "$KAFKA_DIR/consumer.err" \
    | awk 'NF >= 2 && substr($2, 1, 10) ~ /^[0-9]+$/ { print $1, substr($2, 1, 10) + 0 }' > "$2" || true
  awk -v miss="$KAFKA_DIR/kafka-missing.txt" 'FILENAME == ARGV[1] { got[$1 " " $2] = 1; n++; next }
    { split($3 == "-" ? "" : $3, u, ","); delete open; for (k in u) open[u[k]] = 1
      for (q = 1; q <= $2; q++) if (!(q in open)) { acked++; if (!(($1 " " q) in got)) { if (missing++ < 20) print $1, q > miss } } }
    END { printf "%d %d %d", acked, missing, n }' "$2" "$1".*
}

# the operator token of every node (POST /routes/verify)
TOKEN="$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
echo "fleet:$TOKEN" > "$OUT/operator-tokens"

# write_node DIR I: node I's configuration and its start script (the rolling restart runs it again)
write_node() {
  local dir="$1" i="$2"
  mkdir -p "$dir/logs"
  cat > "$dir/gateway.yaml" <<YAML
node.id: fleet-gw-$i
listener.tls.bind: 127.0.0.1
listener.tls.port: $((BASE_PORT + i))
listener.tls.cert-file: $PKI/server.pem
listener.tls.key-file: $PKI/server.key
listener.tls.ca-file: $PKI/ca.pem
$(sink_config)
admin.bind: 127.0.0.1
admin.port: $((BASE_ADMIN + i))
routes.provider: redis
routes.redis.mode: $REDIS_MODE
routes.redis.address: $(redis_address)
$([[ "$REDIS_MODE" == sentinel ]] && echo "routes.redis.sentinel-master: mqttgw")
admin.operations.token-file: $OUT/operator-tokens
routes.redis.heartbeat-interval: $HEARTBEAT
routes.redis.node-ttl: $NODE_TTL
routes.redis.queue-capacity: $ROUTE_QUEUE_CAPACITY
session.provider: redis
session.open-timeout: $OPEN_TIMEOUT
shutdown.ready-grace: $READY_GRACE
shutdown.drain-rate: $DRAIN_RATE
log.lifecycle-rate: 5
YAML
  # the launcher execs the JVM, so the pid written is the node's own (kill -9 reaches the JVM)
  cat > "$dir/start.sh" <<SH
#!/usr/bin/env bash
GATEWAY_LOG_DIR="$dir/logs" JAVA_OPTS="${GATEWAY_OPTS:-}" "$DIST/bin/gateway" run ${GATEWAY_RUN_ARGS:-} \\
  --config "$dir/gateway.yaml" \\
  >> "$dir/gateway.out" 2>&1 &
echo \$! > "$dir/pid"
for _ in \$(seq 1 240); do
  [[ "\$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$((BASE_ADMIN + i))/health/ready")" == 200 ]] && exit 0
  sleep 0.5
done
echo "node $i not ready after 120 s" >&2
exit 1
SH
  # SIGTERM drains the node; wait for its exit (drain + flush), then start it again and wait until it is ready; the
  # span goes to restarts.txt beside the nodes (its listener is closed on purpose then: no flap)
  cat > "$dir/restart.sh" <<SH
#!/usr/bin/env bash
set -u
pid="\$(cat "$dir/pid")"
echo "\$(date -u +%T.%3N) SIGTERM node $i (pid \$pid)"
sigterm_ms="\$(date +%s%3N)"
kill -TERM "\$pid" 2>/dev/null
for _ in \$(seq 1 600); do kill -0 "\$pid" 2>/dev/null || break; sleep 0.2; done
kill -0 "\$pid" 2>/dev/null && { echo "node $i did not exit within 120 s" >&2; exit 1; }
echo "\$(date -u +%T.%3N) node $i exited; starting it"
"$dir/start.sh"
rc=\$?
echo "$i \$sigterm_ms \$(date +%s%3N)" >> "$(dirname "$dir")/restarts.txt"
((rc == 0)) && echo "\$(date -u +%T.%3N) node $i ready"
exit \$rc
SH
  chmod +x "$dir/start.sh" "$dir/restart.sh"
}

# dead_node_keys NODE-ID: members of its route index, whether its heartbeat key exists, and route hashes naming it
dead_node_keys() {
  local named=0 indexed port
  indexed=$(redis ZCARD "mqttgw:node:{$1}:routes")
  # route hashes naming it, counted on every master (a cluster spreads them over its shards), and in a cluster its
  # index, one key per slot (mqttgw:node-routes:{<slot tag>}:<node>)
  for port in $(redis_master_ports); do
    named=$((named + $(redis-cli -p "$port" EVAL "local n = 0 for _, k in ipairs(redis.call('KEYS', ARGV[1])) do if redis.call('HGET', k, 'node') == ARGV[2] then n = n + 1 end end return n" 0 'mqttgw:route:*' "$1")))
    indexed=$((indexed + $(redis-cli -p "$port" EVAL "local n = 0 for _, k in ipairs(redis.call('KEYS', ARGV[1])) do n = n + redis.call('ZCARD', k) end return n" 0 "mqttgw:node-routes:*:$1")))
  done
  printf '%s %s %s' "$indexed" "$(redis EXISTS "mqttgw:node:{$1}:alive")" "$named"
}

redis_master_ports() {
  if [[ "$REDIS_MODE" == cluster ]]; then
    redis-cli -p "$(cluster_entry)" CLUSTER NODES | awk '$3 ~ /master/ && $3 !~ /fail/ { split($2, a, "[:@]"); print a[2] }'
  else
    redis_master_port
  fi
}

# route_figures METRICS: "answered pending" (sampled every 0.5 s with redis-kill)
route_figures() {
  # route operations Redis answered (written, takeover, deleted, fenced, ...): all but dropped, abandoned and
  # coalesced, which never reached it
  printf '%s %s' \
    "$(($(metric mqttgw_routes_redis_ops_total mqttgw <(echo "$1")) \
        - $(metric mqttgw_routes_redis_ops_total 'result="dropped"' <(echo "$1")) \
        - $(metric mqttgw_routes_redis_ops_total 'result="abandoned"' <(echo "$1")) \
        - $(metric mqttgw_routes_redis_ops_total 'result="coalesced"' <(echo "$1"))))" \
    "$(metric mqttgw_routes_redis_pending_operations mqttgw <(echo "$1"))"
}

# watch_routes_gone FILE PID NODE-ID: from the moment PID (the node the bench kills) is gone, every second
# "epoch_ms index alive named" of NODE-ID (dead_node_keys) until all three are 0, or node-ttl + 60 s; a sample Redis
# did not answer (a failover under way) is left out
watch_routes_gone() {
  # gone is also a zombie: the node's parent (start.sh) has exited, and what adopts it need not reap it at once
  while [[ "$(ps -o stat= -p "$2" 2>/dev/null)" =~ ^[^Z] ]]; do sleep 0.2; done
  local until_ms index alive named now_ms
  until_ms=$(($(date +%s%3N) + ($(seconds "$NODE_TTL") + 60) * 1000))
  while :; do
    read -r index alive named <<< "$(dead_node_keys "$3" 2>/dev/null || true)"
    now_ms="$(date +%s%3N)"
    if [[ "$index $alive $named" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]]; then
      echo "$now_ms $index $alive $named" >> "$1"
      [[ "$index $alive $named" == "0 0 0" ]] && return 0
    fi
    ((now_ms > until_ms)) && return 0
    sleep 1
  done
}

# write_outage FILE KILL_MS: the longest stretch after KILL_MS in which a node had route work pending and Redis answered
# none of it
write_outage() {
  awk -v k="$2" '$1 >= k {
      n = $2; if (n in last && $4 > 0 && $3 == last[n]) { if (!(n in since)) since[n] = prev[n]; d = ($1 - since[n]) / 1000; if (d > worst) worst = d }
      else delete since[n]
      last[n] = $3; prev[n] = $1 }
    END { printf "%.1f", worst }' "$1"
}

# wave_over: the scenario's disruption is over (the killed node gone, every node restarted, the outage ended and the
# nodes given two heartbeats to notice), so the route table may be checked once the fleet is back (verify_when_back)
wave_over() {
  case "$SCENARIO" in
    kill|redis-kill) [[ ! "$(ps -o stat= -p "$victim_pid" 2>/dev/null)" =~ ^[^Z] ]] ;;
    rolling) [[ -f "$RUN_DIR/restarts.txt" ]] && (($(wc -l < "$RUN_DIR/restarts.txt") >= NODES)) ;;
    *) [[ -f "$RUN_DIR/outage-over" ]] && (($(date +%s%3N) >= $(cat "$RUN_DIR/outage-over"))) ;;
  esac
}

# until_steady: returns once the bench has printed its first steady line, or has ended
until_steady() {
  until grep -q '\] steady ' "$RUN_DIR/bench.out" 2>/dev/null || ! kill -0 "$bench_pid" 2>/dev/null; do
    sleep 0.2
  done
}

COLUMNS=(round scenario utc load1 devices nodes connected_before on_killed all_back seconds moved failed_attempts
  refused_redispatched failed_twice resumed_share session_present_share collateral ping_p50_ms ping_p99_ms
  qos1_sent qos1_unacked qos1_resent qos1_lost routes_gone_s redis_write_outage_s resynced verify_found
  survivor_overload_transitions survivor_listener_closes verify_when)
[[ "$SINK" == kafka ]] && COLUMNS+=(kafka_acked kafka_acked_missing kafka_records)
[[ "$SCENARIO" == kafka-outage ]] && COLUMNS+=(kafka_outage_s peak_heap_mb heap_before_mb outage_disconnects
  kafka_back_s uplink_flow_s puback_p99_before_ms puback_p99_after_ms peak_pending_mb kafka_failed)
[[ "$SCENARIO" == redis-outage ]] && COLUMNS+=(redis_outage_s outage_failed_attempts outage_connects outage_acked
  peak_route_work route_queue_capacity outage_disconnects route_drain_s sessions_rewritten sessions_in_redis)
(IFS=$'\t'; echo "${COLUMNS[*]}") > "$OUT/results.tsv"
if [[ "$SINK" == kafka ]]; then
  command -v java >/dev/null || { echo "needs java on the PATH for the Kafka broker" >&2; exit 2; }
  kafka_jars
fi
for round in $(seq 1 "$ROUNDS"); do
  RUN_DIR="$OUT/r$round"
  mkdir -p "$RUN_DIR"
  start_redis "$RUN_DIR"
  seq_args=()
  if [[ "$SINK" == kafka ]]; then
    start_kafka "$RUN_DIR/kafka"
    seq_args=(--sequence-file "$RUN_DIR/acked")
  fi
  nodes_arg=""; pids_arg=""
  for i in $(seq 0 $((NODES - 1))); do
    write_node "$RUN_DIR/node-$i" "$i"
    "$RUN_DIR/node-$i/start.sh" || { echo "node $i did not start (see $RUN_DIR/node-$i/gateway.out)" >&2; exit 1; }
    nodes_arg+="${nodes_arg:+,}127.0.0.1:$((BASE_PORT + i))/$((BASE_ADMIN + i))"
    pids_arg+="${pids_arg:+,}$(cat "$RUN_DIR/node-$i/pid")"
  done
  victim=$((NODES - 1))
  bench_hold="$HOLD"
  if [[ "$SCENARIO" == kafka-outage ]]; then
    action=(--action hold)
    bench_hold="$(($(seconds "$HOLD") + $(seconds "$KAFKA_OUTAGE") + $(seconds "$KAFKA_AFTER")))s"
  elif [[ "$SCENARIO" == redis-outage ]]; then
    # this script kills the node itself, at the start of the outage
    action=(--action hold)
    bench_hold="$(($(seconds "$HOLD") + $(seconds "$REDIS_OUTAGE") + $(seconds "$REDIS_AFTER")))s"
  elif [[ "$SCENARIO" != rolling ]]; then
    action=(--action kill --kill-node "$victim" --node-pids "$pids_arg")
  else
    action=(--action rolling --restart-command "$RUN_DIR/node-{node}/restart.sh")
  fi
  load="$(uptime | sed 's/.*load average: \([0-9.]*\),.*/\1/')"
  utc="$(date -u +%H:%M:%SZ)"
  echo "== round $round ($SCENARIO, $NODES nodes, $DEVICES devices, Redis $REDIS_MODE) at $utc, load $load"
  "$BENCH" fleet --devices "$DEVICES" --per-worker "$PER_WORKER" --pki-dir "$PKI" --source "$SOURCE" \
    --nodes "$nodes_arg" --admin none --balance "$BALANCE" --health-interval 1s \
    --profile field --time-scale "$TIME_SCALE" --heartbeat-qos 1 --status-qos 1 \
    --clean-session "$CLEAN_SESSION" --resume "$RESUME" --mqtt-version "$MQTT_VERSION" \
    --ramp-rate "$RAMP_RATE" --max-handshakes "$MAX_HANDSHAKES" --hold "$bench_hold" --settle 2s \
    --backoff-base 1s --backoff-max 30s --recover-timeout "$RECOVER_TIMEOUT" "${action[@]}" "${WORKER_ARGS[@]}" "${seq_args[@]}" \
    --out "$RUN_DIR/bench" > "$RUN_DIR/bench.out" 2>&1 &
  bench_pid=$!
  redis_kill_ms=""; sampler=""; watcher=""
  victim_pid="$(cat "$RUN_DIR/node-$victim/pid")"
  sample_nodes "$RUN_DIR/fleet-metrics.txt" 1 fleet_figures &
  fleet_sampler=$!
  (until_steady; date +%s%3N > "$RUN_DIR/steady-ms") &
  verify_when_back "$RUN_DIR/verify.txt" "$bench_pid" &
  verifier=$!
  if [[ "$SCENARIO" =~ ^(kill|redis-kill)$ ]]; then
    # sampled from the kill on, not polled after the bench: what runs after it (the read-back of the uplink topic
    # takes 30 s and more) would add its own time to the column
    : > "$RUN_DIR/routes-gone.txt"
    watch_routes_gone "$RUN_DIR/routes-gone.txt" "$victim_pid" "fleet-gw-$victim" &
    watcher=$!
  fi
  if [[ "$SCENARIO" == redis-kill ]]; then
    # the Redis master goes 1 s before the bench kills the node (the end of --hold after the first steady line), so
    # the wave's writes meet the failover while it is under way
    until grep -q '\] steady ' "$RUN_DIR/bench.out" 2>/dev/null || ! kill -0 "$bench_pid" 2>/dev/null; do
      sleep 0.05
    done
    sleep "$(awk -v h="${HOLD%s}" 'BEGIN { print (h > 2 ? h - 1 : 1) }')"
    if kill -0 "$bench_pid" 2>/dev/null; then
      sample_nodes "$RUN_DIR/route-metrics.txt" 0.5 route_figures &
      sampler=$!
      redis_kill_ms="$(date +%s%3N)"
      echo "$(date -u +%T.%3N) kill -9 of the Redis master on port $(kill_redis_master)"
    fi
  fi
  kafka_fields=()
  if [[ "$SCENARIO" == kafka-outage ]]; then
    until_steady
    sample_nodes "$RUN_DIR/kafka-metrics.txt" 1 kafka_figures &
    sampler=$!
    sleep "$(seconds "$HOLD")"
    t_out="$(bench_t)"
    outage_ms="$(date +%s%3N)"
    if [[ "$KAFKA_OUTAGE_MODE" == kill ]]; then
      kill -9 "$KAFKA_PID"
    else
      kill -STOP "$KAFKA_PID"
    fi
    echo "$(date -u +%T.%3N) Kafka down ($KAFKA_OUTAGE_MODE) for $KAFKA_OUTAGE"
    sleep "$(seconds "$KAFKA_OUTAGE")"
    restart_ms="$(date +%s%3N)"
    if [[ "$KAFKA_OUTAGE_MODE" == kill ]]; then
      launch_kafka
    else
      kill -CONT "$KAFKA_PID"
    fi
    back_ms="$(date +%s%3N)"
    echo "$back_ms" > "$RUN_DIR/outage-over"
    echo "$(date -u +%T.%3N) Kafka back"
  fi
  redis_fields=()
  if [[ "$SCENARIO" == redis-outage ]]; then
    until_steady
    sleep "$(seconds "$HOLD")"
    t_out="$(bench_t)"
    outage_ms="$(date +%s%3N)"
    if [[ "$REDIS_OUTAGE_MODE" == kill ]]; then
      kill -9 "${REDIS_PIDS[0]}"
    else
      kill -STOP "${REDIS_PIDS[0]}"
    fi
    # its devices have to connect to the survivors while Redis is down
    kill -9 "$victim_pid"
    echo "$(date -u +%T.%3N) Redis down ($REDIS_OUTAGE_MODE) for $REDIS_OUTAGE, kill -9 of node $victim"
    sleep "$(seconds "$REDIS_OUTAGE")"
    if [[ "$REDIS_OUTAGE_MODE" == kill ]]; then
      redis_server "$RUN_DIR/redis-restarted" "$REDIS_PORT"  # fresh and empty: nothing survives the outage
    else
      kill -CONT "${REDIS_PIDS[0]}"
    fi
    back_ms="$(date +%s%3N)"
    # the nodes notice an emptied Redis at their next heartbeat; the check before that would find what they are
    # about to rewrite
    echo $((back_ms + 2 * $(seconds "$HEARTBEAT") * 1000)) > "$RUN_DIR/outage-over"
    echo "$(date -u +%T.%3N) Redis back"
  fi
  wait "$bench_pid" || echo "bench exited $? (see $RUN_DIR/bench.out)"
  # the check runs while the bench holds the devices; after the bench only when the fleet never came back
  wait "$verifier" || true
  verifier=""
  kill "$fleet_sampler" 2>/dev/null || true
  fleet_sampler=""
  read -r found verify_when sessions < "$RUN_DIR/verify.txt" || { found=""; verify_when="not checked"; sessions=-; }
  skip=-1
  [[ "$SCENARIO" =~ ^(kill|redis-kill|redis-outage)$ ]] && skip="$victim"
  read -r flaps closes <<< "$(survivor_flaps "$RUN_DIR/fleet-metrics.txt" "$(cat "$RUN_DIR/steady-ms" 2>/dev/null \
    || echo 0)" "$skip" "$([[ -f "$RUN_DIR/restarts.txt" ]] && echo "$RUN_DIR/restarts.txt" || echo /dev/null)")"
  if [[ "$SCENARIO" == kafka-outage ]]; then
    kill "$sampler" 2>/dev/null || true
    # per sample time: the nodes' total of acknowledged records, disconnects, and the largest heap of a node
    # the window ends with the hold (the bench then closes its devices, which the nodes count as disconnects)
    end_ms=$((outage_ms + ($(seconds "$KAFKA_OUTAGE") + $(seconds "$KAFKA_AFTER")) * 1000))
    # (pending: the largest charge against max-pending-bytes of one node; failed: records refused or failed, all nodes)
    read -r peak before disc flow pend failed <<< "$(awk -v o="$outage_ms" -v b="$back_ms" -v e="$end_ms" '
      $1 <= e { heap[$1] = (heap[$1] > $3 ? heap[$1] : $3); d[$1] += $4; a[$1] += $5; f[$1] += $7
        if ($1 >= o && $6 > pend) pend = $6; if (!($1 in seen)) { seen[$1] = 1; t[++n] = $1 } }
      END { flow = "never"; for (i = 1; i <= n; i++) { s = t[i]
          if (s < o) { if (heap[s] > before) before = heap[s]; d0 = d[s]; a0 = a[s]; f0 = f[s]; continue }
          if (heap[s] > peak) peak = heap[s]; d1 = d[s]; f1 = f[s]
          if (s <= b) ab = a[s]; else if (flow == "never" && a[s] > ab) flow = sprintf("%.1f", (s - b) / 1000) }
        printf "%.0f %.0f %d %s %.1f %d", peak / 1048576, before / 1048576, d1 - d0, flow, pend / 1048576, f1 - f0 }' \
      "$RUN_DIR/kafka-metrics.txt")"
    # bench run times: the outage, 10 s after uplink flows again, the end of the hold
    read -r flow_t end_t <<< "$(awk -v t="$t_out" -v o="$outage_ms" -v b="$back_ms" -v e="$end_ms" -v f="$flow" \
      'BEGIN { print (f == "never" ? 1e9 : t + (b - o) / 1000 + f + 10), t + (e - o) / 1000 }')"
    # the largest per-second PUBACK p99 of the steady lines in each window ("" when the window has none: the broker's
    # restart took the hold's time after the outage; raise KAFKA_AFTER)
    read -r p99_before p99_after <<< "$(awk -v t="$t_out" -v f="$flow_t" -v e="$end_t" '
      /\] steady / && match($0, /^\[ *[0-9.]+s\]/) { s = substr($0, 2, RLENGTH - 3) + 0
        if (match($0, /ack p50 [^ ]+ p99 [0-9.]+ ms/)) { split(substr($0, RSTART, RLENGTH), w, " "); v = w[5] + 0
          if (s < t && v >= b) { b = v; nb++ } if (s > f && s <= e && v >= a) { a = v; na++ } } }
      END { printf "%s %s", (nb ? sprintf("%.2f", b) : "-"), (na ? sprintf("%.2f", a) : "-") }' "$RUN_DIR/bench.out")"
    kafka_fields=("$KAFKA_OUTAGE" "$peak" "$before" "$disc"
      "$(awk -v r="$restart_ms" -v b="$back_ms" 'BEGIN { printf "%.1f", (b - r) / 1000 }')" "$flow" "$p99_before"
      "$p99_after" "$pend" "$failed")
  fi
  if [[ "$SINK" == kafka ]]; then
    read -r acked missing records <<< "$(kafka_check "$RUN_DIR/acked" "$RUN_DIR/kafka-records.txt")"
    kafka_fields=("$acked" "$missing" "$records" "${kafka_fields[@]}")
  fi
  s="$RUN_DIR/bench/summary.json"
  routes_gone=""
  if [[ -n "$watcher" ]]; then
    # the dead node's route index and heartbeat must go once its heartbeat has expired (node-ttl) and a survivor
    # has seen it stop advancing; the watcher gives it node-ttl + 60 s from the kill
    if [[ -f "$s" ]]; then
      wait "$watcher" || true
      kill_ms="$(jq -r '.fleet.killEpochMillis' "$s")"
      routes_gone="$(awk -v k="$kill_ms" '{ last = $2 " indexed, alive " $3 ", " $4 " naming it" }
        $2 == 0 && $3 == 0 && $4 == 0 { printf "%.1f", ($1 - k) / 1000; gone = 1; exit }
        END { if (!gone) printf "not gone (%s)", (last == "" ? "Redis did not answer" : last) }' \
        "$RUN_DIR/routes-gone.txt")"
    else
      kill "$watcher" 2>/dev/null || true
    fi
    watcher=""
  fi
  outage=""; resynced=""; rewritten=""
  if [[ -n "$redis_kill_ms" ]]; then
    kill "$sampler" 2>/dev/null || true
    outage="$(write_outage "$RUN_DIR/route-metrics.txt" "$redis_kill_ms")"
  fi
  if [[ "$SCENARIO" =~ ^redis- ]]; then
    resynced=0; rewritten=0
    for i in $(seq 0 $((NODES - 1))); do
      ((i == victim)) && continue
      curl -s "http://127.0.0.1:$((BASE_ADMIN + i))/metrics" > "$RUN_DIR/node-$i/metrics.txt" || true
      resynced=$((resynced + $(metric mqttgw_routes_redis_resync_routes_total mqttgw "$RUN_DIR/node-$i/metrics.txt")))
      rewritten=$((rewritten + $(metric mqttgw_sessions_redis_rewritten_total mqttgw "$RUN_DIR/node-$i/metrics.txt")))
    done
  fi
  if [[ "$SCENARIO" == redis-outage ]]; then
    end_ms=$((outage_ms + ($(seconds "$REDIS_OUTAGE") + $(seconds "$REDIS_AFTER")) * 1000))
    read -r out_failed out_acked <<< "$(outage_bench_figures "$RUN_DIR/bench.out" "$t_out" \
      "$(awk -v o="$outage_ms" -v b="$back_ms" 'BEGIN { printf "%.1f", (b - o) / 1000 }')")"
    read -r out_connects peaks out_disc drain <<< "$(outage_node_figures "$RUN_DIR/fleet-metrics.txt" "$victim" \
      "$outage_ms" "$back_ms" "$end_ms")"
    redis_fields=("$REDIS_OUTAGE" "$out_failed" "$out_connects" "$out_acked" "$peaks" "$ROUTE_QUEUE_CAPACITY"
      "$out_disc" "$drain" "$rewritten" "$sessions")
  fi
  stop_all
  if [[ -f "$s" ]]; then
    jq -r --arg round "$round" --arg sc "$SCENARIO" --arg utc "$utc" --arg load "$load" --arg gone "$routes_gone" \
      --arg outage "$outage" --arg resynced "$resynced" --arg found "$found" '
      def attempts(m): [m // {} | to_entries[] | select(.key != "devices_failed_more_than_once") | .value] | add // 0;
      def r(x): if x == null or (x | type) != "number" then "" else (x * 1000 | round / 1000) end;
      .fleet as $f |
      [$round, $sc, $utc, $load, .devices, ($f.nodes | length), $f.connectedBefore, ($f.devicesOnKilledNode // ""),
       (if $f.allBack == null then ([$f.restarts[]?.allBack] | all) else $f.allBack end),
       r($f.secondsUntilAllBack // $f.totalSeconds), $f.devicesMoved, attempts($f.failedAttempts),
       $f.refusedRedispatched, $f.devicesFailedMoreThanOnce, r($f.resumedShare), r($f.sessionPresentShare),
       ($f.collateralDrops // ""), r($f.pingRespMs.p50), r($f.pingRespMs.p99), $f.qos1Sent, $f.qos1Unacknowledged,
       $f.qos1Resent, $f.qos1Lost, $gone, $outage, $resynced, $found] | @tsv' "$s" \
      | { IFS= read -r row; extra=("$flaps" "$closes" "$verify_when" "${kafka_fields[@]}" "${redis_fields[@]}")
          (IFS=$'\t'; echo "$row"$'\t'"${extra[*]}"); } >> "$OUT/results.tsv"
  else
    printf '%s\t%s\t%s\t%s\tno summary (see %s)\n' "$round" "$SCENARIO" "$utc" "$load" "$RUN_DIR/bench.out" \
      >> "$OUT/results.tsv"
  fi
  tail -n 1 "$OUT/results.tsv"
  RUN_DIR=""
done

# ranges over the rounds: min-max of every numeric column
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; n = NF; next }
  { rows++; for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9.]+$/) {
      if (!(i in lo) || $i + 0 < lo[i]) lo[i] = $i + 0; if (!(i in hi) || $i + 0 > hi[i]) hi[i] = $i + 0 } }
  END { print "figure\trange over " rows " rounds";
    for (i = 5; i <= n; i++) if (i in lo) printf "%s\t%s\n", name[i], (lo[i] == hi[i] ? lo[i] : lo[i] "-" hi[i]) }' \
  "$OUT/results.tsv" > "$OUT/summary.tsv"
{
  echo "<!DOCTYPE html><html><head><meta charset='utf-8'/><title>fleet $SCENARIO</title><style>body{font-family:sans-serif}"
  echo "td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}</style></head><body>"
  echo "<h1>fleet $SCENARIO: $NODES nodes, $DEVICES devices, $ROUNDS rounds</h1><p>$(uname -n), $(nproc) cores</p>"
  echo "<h2>Ranges over the rounds</h2><table>"
  awk -F'\t' '{ printf "<tr><td>%s</td><td>%s</td></tr>\n", $1, $2 }' "$OUT/summary.tsv"
  echo "</table><h2>Rounds</h2><table>"
  awk -F'\t' '{ printf "<tr>"; for (i = 1; i <= NF; i++) printf "<td>%s</td>", $i; print "</tr>" }' "$OUT/results.tsv"
  echo "</table><h2>Each round's bench report (connections per node, reconnects per second, failures)</h2><ul>"
  for round in $(seq 1 "$ROUNDS"); do
    echo "<li><a href='r$round/bench/report.html'>round $round</a></li>"
  done
  echo "</ul></body></html>"
} > "$OUT/index.html"
column -t -s $'\t' "$OUT/summary.tsv" 2>/dev/null || cat "$OUT/summary.tsv"
echo "results: $OUT/results.tsv, ranges: $OUT/summary.tsv, report: $OUT/index.html"
