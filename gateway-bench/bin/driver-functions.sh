# Shell functions shared by the benchmark drivers in this directory (storm-vs-mosquitto.sh, uplink-vs-mosquitto.sh,
# keepalive-vs-mosquitto.sh, uplink-acks.sh, fleet-node-kill.sh, field-profile-vs-mosquitto.sh); sourced, not run.
# Each stops or waits for one thing the driver started, by pid or port, never by name.

# start_mosquitto DIR PORT PKI: Debian's mosquitto with mutual TLS on 127.0.0.1:PORT, the certificate's CN as user name,
# config and log in DIR, the bench PKI in PKI; sets SERVER_PID and returns once the port accepts
start_mosquitto() {
  local dir="$1" port="$2" pki="$3"
  cat > "$dir/mosquitto.conf" <<CONF
user root
persistence false
log_dest file $dir/mosquitto.log
log_type error
log_type warning
listener $port 127.0.0.1
cafile $pki/ca.pem
certfile $pki/server.pem
keyfile $pki/server.key
require_certificate true
use_identity_as_username true
allow_anonymous true
max_connections -1
CONF
  "$(command -v mosquitto || echo /usr/sbin/mosquitto)" -c "$dir/mosquitto.conf" > "$dir/mosquitto.out" 2>&1 &
  SERVER_PID=$!
  wait_port "$port"
}

# wait_port PORT: until something accepts on 127.0.0.1:PORT (at most 120 s)
wait_port() {
  for _ in $(seq 1 240); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.5
  done
  echo "port $1 did not open" >&2
  return 1
}

# stop_pid PID [GRACE]: SIGTERM, then SIGKILL if it still runs after GRACE seconds (default 60); nothing if it is gone
stop_pid() {
  local pid="$1" grace="${2:-60}"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((grace * 2))); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -KILL "$pid" 2>/dev/null || true
}

# metric NAME LABEL-FILTER FILE: the sum over the series of NAME in a saved /metrics text whose labels contain the filter
metric() {
  awk -v n="$1" -v f="$2" '$1 ~ "^"n"({|$)" && index($1, f) { s += $2 } END { printf "%.0f", s }' "$3"
}

# driver_options ARGS...: the options of storm-vs-mosquitto.sh and uplink-vs-mosquitto.sh: --devices N, --rounds N,
# --out DIR, --pki-dir DIR; sets DEVICES, ROUNDS, OUT, PKI over the driver's defaults; exits 2 on anything else
driver_options() {
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --devices) DEVICES="$2"; shift 2 ;;
      --rounds) ROUNDS="$2"; shift 2 ;;
      --out) OUT="$2"; shift 2 ;;
      --pki-dir) PKI="$2"; shift 2 ;;
      *) echo "unknown option $1" >&2; exit 2 ;;
    esac
  done
}

# driver_defaults NAME DEVICES ARGS...: the settings of uplink-vs-mosquitto.sh and keepalive-vs-mosquitto.sh: 3 rounds,
# OUT bench-results/NAME-<UTC time>, PKI /tmp/uplink-pki, the options ARGS over those (driver_options), then from the
# environment DEVICES [DEVICES], SOURCE [127.0.1.2-127.0.1.250], GW_PORT [18883], GW_ADMIN_PORT [18090],
# MOSQ_PORT [18884] and SERVERS ["gateway mosquitto"]
driver_defaults() {
  local name="$1" devices="$2"
  shift 2
  ROUNDS=3
  OUT="bench-results/$name-$(date -u +%Y%m%d-%H%M%S)"
  PKI=/tmp/uplink-pki
  driver_options "$@"
  DEVICES="${DEVICES:-$devices}"
  SOURCE="${SOURCE:-127.0.1.2-127.0.1.250}"
  GW_PORT="${GW_PORT:-18883}"
  GW_ADMIN_PORT="${GW_ADMIN_PORT:-18090}"
  MOSQ_PORT="${MOSQ_PORT:-18884}"
  SERVERS="${SERVERS:-gateway mosquitto}"
}

# start_driver_server ROUND ENTRY NODE [RUN-ARGS...]: one entry of SERVERS for a round: mosquitto, gateway (the
# distribution of this checkout) or gateway:LABEL=DIST (the distribution in DIST), a gateway's name followed by config
# keys after commas (gateway:nio,server.transport=nio); the gateway as node NODE with the `gateway run`
# arguments RUN-ARGS; sets label (the name with ':' as '-'), dir (OUT/rROUND-label, made), port, admin (the gateway's
# admin address, none for Mosquitto) and SERVER_PID
start_driver_server() {
  local round="$1" entry="$2" node="$3" server settings="" dist
  shift 3
  server="${entry%%,*}"
  # key=value pairs after the name, as config lines of this gateway
  [[ "$entry" == *,* ]] && settings="${entry#*,}"
  label="${server%%=*}"; label="${label//:/-}"
  dir="$OUT/r$round-$label"
  mkdir -p "$dir"
  if [[ "$server" == mosquitto ]]; then
    start_mosquitto "$dir" "$MOSQ_PORT" "$PKI"; port="$MOSQ_PORT"; admin=none
  else
    dist="$ROOT/deploy/target/mqtt-gateway"
    [[ "$server" == *=* ]] && dist="${server#*=}"
    GATEWAY_CONFIG="$(tr ',' '\n' <<< "$settings" | sed -n 's/^\([^=]*\)=\(.*\)$/\1: \2/p')" \
      start_gateway_dist "$dir" "$dist" "$node" "$@"; port="$GW_PORT"; admin="127.0.0.1:$GW_ADMIN_PORT"
  fi
}

# uplink_defaults WARMUP: the uplink load of uplink-vs-mosquitto.sh and syscalls-vs-mosquitto.sh from the environment:
# RATE [5000] (PUBLISH/s over all devices), QOS [1], PAYLOAD [200], DURATION [30s], WARMUP_DURATION [WARMUP],
# MQTT_VERSION [3.1.1]
uplink_defaults() {
  RATE="${RATE:-5000}"
  QOS="${QOS:-1}"
  PAYLOAD="${PAYLOAD:-200}"
  DURATION="${DURATION:-30s}"
  WARMUP_DURATION="${WARMUP_DURATION:-$1}"
  MQTT_VERSION="${MQTT_VERSION:-3.1.1}"
}

# uplink_publish NAME DURATION ADMIN [BENCH-ARGS...]: one `bench publish` of that load from the driver's DEVICES and
# SOURCE against the server of the run under way (port), client ids pub-NAME-*, its report in $dir/NAME and its output
# in $dir/NAME.out; ADMIN is the gateway's admin address or none
uplink_publish() {
  local name="$1" duration="$2" admin="$3"
  shift 3
  local extra=("$@")
  "$BENCH" publish --devices "$DEVICES" --rate "$RATE" --qos "$QOS" --payload "$PAYLOAD" --duration "$duration" \
    --settle 3s --pki-dir "$PKI" --source "$SOURCE" --port "$port" --admin "$admin" --client-prefix "pub-$name-" \
    --mqtt-version "$MQTT_VERSION" --out "$dir/$name" "${extra[@]}" > "$dir/$name.out" 2>&1
}

# prepare_driver: needs jq and mosquitto; makes OUT (absolute from here on), the bench PKI in PKI unless it is there
# (with $BENCH), and stops the server of the run under way (SERVER_PID) when the driver exits
prepare_driver() {
  command -v jq >/dev/null || { echo "needs jq" >&2; exit 2; }
  command -v mosquitto >/dev/null || [[ -x /usr/sbin/mosquitto ]] \
    || { echo "needs mosquitto: apt-get install -y mosquitto" >&2; exit 2; }
  mkdir -p "$OUT"
  OUT="$(cd "$OUT" && pwd)"
  [[ -f "$PKI/server.pem" ]] || "$BENCH" pki --pki-dir "$PKI"
  SERVER_PID=""
  trap stop_server EXIT
}

# stop_server: stops the server of the run under way (SERVER_PID), if any
stop_server() {
  stop_pid "$SERVER_PID" 60
  SERVER_PID=""
}

# start_gateway_dist DIR DIST NODE [RUN-ARGS...]: the distribution in DIST (the directory holding bin/gateway) with
# the shipped defaults apart from ports (GW_PORT, GW_ADMIN_PORT), files (the bench PKI in PKI) and the sink (the
# discard sink, or the gateway.yaml lines in GW_SINK_CONFIG), JVM options GATEWAY_OPTS, further config lines
# GATEWAY_CONFIG (e.g. "server.transport: nio"), config and logs in DIR; sets SERVER_PID (the JVM's: the launcher
# execs it) and returns once /metrics answers
start_gateway_dist() {
  local dir="$1" dist="$2" node="$3"
  shift 3
  [[ -x "$dist/bin/gateway" ]] || { echo "no gateway distribution in $dist (./mvnw -DskipTests package)" >&2; exit 2; }
  cat > "$dir/gateway.yaml" <<YAML
node.id: $node
listener.tls.bind: 127.0.0.1
listener.tls.port: $GW_PORT
listener.tls.cert-file: $PKI/server.pem
listener.tls.key-file: $PKI/server.key
listener.tls.ca-file: $PKI/ca.pem
${GW_SINK_CONFIG:-uplink.sink: discard}
admin.bind: 127.0.0.1
admin.port: $GW_ADMIN_PORT
log.lifecycle-rate: 5
YAML
  if [[ -n "${GATEWAY_CONFIG:-}" ]]; then
    printf '%s\n' "$GATEWAY_CONFIG" >> "$dir/gateway.yaml"
  fi
  GATEWAY_LOG_DIR="$dir/logs" JAVA_OPTS="${GATEWAY_OPTS:-}" "$dist/bin/gateway" run "$@" --config "$dir/gateway.yaml" \
    > "$dir/gateway.out" 2>&1 &
  SERVER_PID=$!
  wait_port "$GW_PORT"
  for _ in $(seq 1 60); do
    curl -sf "http://127.0.0.1:$GW_ADMIN_PORT/metrics" >/dev/null && return 0
    sleep 0.5
  done
}

# seconds DURATION: whole seconds of a duration written in s or m (or a bare number of seconds)
seconds() {
  case "$1" in *m) echo $((${1%m} * 60)) ;; *s) echo "${1%s}" ;; *) echo "$1" ;; esac
}

# cpu_ticks PID: utime + stime of the process so far, in clock ticks (getconf CLK_TCK)
cpu_ticks() {
  stat_ticks "/proc/$1/stat"
}

# stat_ticks FILE: utime + stime from a /proc stat file (a process's, or a thread's /proc/PID/task/TID/stat)
stat_ticks() {
  local stat
  stat="$(cat "$1")"
  # the command in parentheses may hold spaces ("GC Thread#0"); the fields after it are fixed
  stat="${stat##*) }"
  # shellcheck disable=SC2086
  set -- $stat
  echo $((${12} + ${13}))
}

# A single Kafka broker for the drivers that send the uplink into one (fleet-node-kill.sh SINK=kafka,
# field-profile-vs-mosquitto.sh): call kafka_jars once, then start_kafka per round; the driver sets KAFKA_PARTITIONS
# and stops KAFKA_PID. KAFKA_CACHE and KAFKA_OPTS come from the environment.
KAFKA_VERSION=4.3.1
KAFKA_CACHE="${KAFKA_CACHE:-$HOME/.cache/mqttgw-bench/kafka-$KAFKA_VERSION}"
KAFKA_TOPIC=device.uplink

# kafka_jars: the broker's and the console tools' jars in KAFKA_CACHE/lib, resolved once from Maven Central with the
# repository's Maven wrapper (a fresh machine needs nothing else)
kafka_jars() {
  [[ -f "$KAFKA_CACHE/lib/.complete" ]] && return 0
  mkdir -p "$KAFKA_CACHE"
  cat > "$KAFKA_CACHE/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.bench</groupId>
  <artifactId>kafka-broker-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.20</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j2-impl</artifactId><version>2.26.1</version></dependency>
  </dependencies>
</project>
POM
  echo "resolving Kafka $KAFKA_VERSION into $KAFKA_CACHE/lib (once) ..."
  (cd "$ROOT" && ./mvnw -B -ntp -q -f "$KAFKA_CACHE/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$KAFKA_CACHE/lib" -DincludeScope=runtime)
  touch "$KAFKA_CACHE/lib/.complete"
}

# KAFKA_JAVA: a JVM on the Kafka jars, logging warnings to its stdout (an array, not a function: a function run with &
# is a subshell, and its pid is not the broker's, which kill -9 must reach)
read -r -a KAFKA_JVM_OPTS <<< "${KAFKA_OPTS:--Xmx1g}"
KAFKA_JAVA=(java "${KAFKA_JVM_OPTS[@]}" -Dlog4j2.configurationFile="$KAFKA_CACHE/log4j2.properties"
  -cp "$KAFKA_CACHE/lib/*")

# free_port: a port on 127.0.0.1 that nothing accepts on, below the ephemeral range
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 12000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}

# start_kafka DIR: one broker (KRaft, combined broker and controller) on free ports with its log dir in DIR, and the
# uplink topic; sets KAFKA_PORT (kept for the restart) and KAFKA_PID
start_kafka() {
  KAFKA_DIR="$1"
  mkdir -p "$KAFKA_DIR"
  printf '%s\n' 'rootLogger.level = WARN' 'rootLogger.appenderRef.out.ref = out' 'appender.out.type = Console' \
    'appender.out.name = out' 'appender.out.layout.type = PatternLayout' \
    'appender.out.layout.pattern = %d{HH:mm:ss.SSS} %-5p %c{1} %m%n' > "$KAFKA_CACHE/log4j2.properties"
  KAFKA_PORT="$(free_port)"
  local controller
  controller="$(free_port)"
  printf '%s\n' "process.roles=broker,controller" "node.id=1" "controller.quorum.voters=1@127.0.0.1:$controller" \
    "listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$controller" \
    "advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT" "controller.listener.names=CONTROLLER" \
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT" "inter.broker.listener.name=PLAINTEXT" \
    "log.dirs=$KAFKA_DIR/data" "num.partitions=$KAFKA_PARTITIONS" "auto.create.topics.enable=false" \
    "offsets.topic.replication.factor=1" "transaction.state.log.replication.factor=1" \
    "transaction.state.log.min.isr=1" "share.coordinator.state.topic.replication.factor=1" \
    "share.coordinator.state.topic.min.isr=1" "group.initial.rebalance.delay.ms=0" \
    "offsets.topic.num.partitions=1" > "$KAFKA_DIR/server.properties"
  "${KAFKA_JAVA[@]}" kafka.tools.StorageTool format -t "$("${KAFKA_JAVA[@]}" kafka.tools.StorageTool random-uuid)" \
    -c "$KAFKA_DIR/server.properties" > "$KAFKA_DIR/format.log" 2>&1 \
    || { echo "kafka storage format failed: see $KAFKA_DIR/format.log" >&2; exit 1; }
  launch_kafka
  for _ in $(seq 1 60); do
    "${KAFKA_JAVA[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" \
      --create --if-not-exists --topic "$KAFKA_TOPIC" --partitions "$KAFKA_PARTITIONS" --replication-factor 1 >> "$KAFKA_DIR/topic.log" 2>&1 \
      && return 0
    sleep 1
  done
  echo "cannot create topic $KAFKA_TOPIC: see $KAFKA_DIR/topic.log" >&2
  exit 1
}

# launch_kafka: the broker of KAFKA_DIR (again, after a kill: same ports, same log dir); returns once its port accepts
launch_kafka() {
  "${KAFKA_JAVA[@]}" kafka.Kafka "$KAFKA_DIR/server.properties" >> "$KAFKA_DIR/broker.log" 2>&1 &
  KAFKA_PID=$!
  disown  # stop_pid polls; the shell need not report the broker this scenario kills
  wait_port "$KAFKA_PORT"
}

# kafka_sink_config: the gateway.yaml lines that send the uplink into the broker of start_kafka (the producer's
# other settings at the gateway's defaults)
kafka_sink_config() {
  printf '%s\n' "uplink.sink: kafka" "uplink.kafka.bootstrap-servers: 127.0.0.1:$KAFKA_PORT" \
    "uplink.kafka.default-topic: $KAFKA_TOPIC"
}
