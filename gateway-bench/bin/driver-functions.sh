# Shell functions shared by the benchmark drivers in this directory (storm-vs-mosquitto.sh, uplink-vs-mosquitto.sh,
# keepalive-vs-mosquitto.sh, uplink-acks.sh, fleet-node-kill.sh); sourced, not run. Each stops or waits for one thing the driver started, by pid or port, never by name.

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
# keys after commas (gateway:uring,server.transport=io_uring); the gateway as node NODE with the `gateway run`
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
# the shipped defaults apart from ports (GW_PORT, GW_ADMIN_PORT), files (the bench PKI in PKI) and the discard sink,
# JVM options GATEWAY_OPTS, further config lines GATEWAY_CONFIG (e.g. "server.transport: io_uring"), config and logs
# in DIR; sets SERVER_PID (the JVM's: the launcher execs it) and returns once /metrics answers
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
uplink.sink: discard
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
