# Shell functions shared by the benchmark drivers in this directory (storm-vs-mosquitto.sh, uplink-vs-mosquitto.sh,
# uplink-acks.sh); sourced, not run. Each stops or waits for one thing the driver started, by pid or port, never by name.

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
