# Shell functions shared by the benchmark drivers in this directory (storm-vs-mosquitto.sh, uplink-acks.sh); sourced,
# not run. Each stops or waits for one thing the driver started, by pid or port, never by name.

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
