# shellcheck shell=bash
# What fleet-node-kill.sh measures on the nodes in every scenario (listener flaps on the survivors, the route table
# checked once the fleet is back) and the figures of its redis-outage scenario; sourced by it, not run. The functions
# read the driver's NODES, DEVICES, BASE_ADMIN, TOKEN, RUN_DIR, SCENARIO and REDIS_PORT.

# fleet_figures METRICS: "overload_transitions listeners_open connects_accepted route_work disconnects connections" of
# one node's /metrics text (sampled every second in every scenario); route work is what waits for Redis: queued by
# the event loops plus taken by the flusher and not yet stored
fleet_figures() {
  echo "$1" | awk '
    /^mqttgw_overload_transitions_total[{ ]/ { o += $NF }
    /^mqttgw_listeners_open[{ ]/ { l += $NF; seen = 1 }
    /^mqttgw_connects_total\{/ && /result="accepted"/ { c += $NF }
    /^mqttgw_routes_redis_queue_depth[{ ]/ { q += $NF }
    /^mqttgw_routes_redis_pending_operations[{ ]/ { q += $NF }
    /^mqttgw_disconnects_total[{ ]/ { d += $NF }
    /^mqttgw_connections_open[{ ]/ { n += $NF }
    END { printf "%.0f %s %.0f %.0f %.0f %.0f", o, (seen ? sprintf("%.0f", l) : "-"), c, q, d, n }'
}

# survivor_flaps FILE FROM_MS VICTIM RESTARTS: "transitions closes" of the nodes that were meant to keep serving, from
# FROM_MS (the devices steady) on, out of fleet_figures samples in FILE: times a node entered or left overload, and
# times its device listeners were seen closed after being open. VICTIM (-1: none) is left out, and so is a node
# between its SIGTERM and its ready again (RESTARTS: lines "node sigterm_ms ready_ms" of a rolling restart), whose
# listener closes on purpose; its counter starts again from 0 after the restart, counted whole.
survivor_flaps() {
  awk -v from="$2" -v victim="$3" 'FILENAME == ARGV[1] { win[$1] = win[$1] " " $2 ":" $3; next }
    $1 < from || $2 == victim { next }
    { n = $2; k = split(win[n], w, " "); inside = 0
      for (i = 1; i <= k; i++) { split(w[i], p, ":"); if ($1 >= p[1] && $1 <= p[2]) inside = 1 }
      if (inside) { delete prev[n]; delete open[n]; restarted[n] = 1; next }
      if (n in prev) t += ($3 >= prev[n] ? $3 - prev[n] : $3)
      else if (n in restarted) { t += $3; delete restarted[n] }
      if (open[n] == "1" && $4 == "0") c++
      prev[n] = $3; open[n] = $4 }
    END { printf "%d %d", t, c }' "$4" "$1"
}

# node_metrics I: node I's /metrics text ("" when it does not answer within a second)
node_metrics() {
  curl -s -m 1 "http://127.0.0.1:$((BASE_ADMIN + $1))/metrics" || true
}

# fleet_back: every device is connected to a node that answers and no node has route work waiting for Redis
fleet_back() {
  local i m open=0 work=0
  for i in $(seq 0 $((NODES - 1))); do
    m="$(node_metrics "$i")"
    [[ -n "$m" ]] || continue
    read -r _ _ _ q _ n <<< "$(fleet_figures "$m")"
    open=$((open + n))
    work=$((work + q))
  done
  ((open >= DEVICES && work == 0))
}

# verify_when_back OUT BENCH_PID: once the scenario's disruption is over (the driver's wave_over) and the fleet is
# back (fleet_back), POST /routes/verify on every node that answers, all at once, while the bench still holds the
# devices (it ends 8 s after the last one is back, or at the end of its hold), then counts the persistent sessions in
# Redis (redis-outage only); writes "found when sessions" to OUT: when is "back", or "after-bench" if the bench ended
# first (the table then checked against nodes whose devices have gone), with ",incomplete" for each check that ran out
# of time and ",node-I-failed" for one that did not answer 200; sessions is "-" in the other scenarios
verify_when_back() {
  local out="$1" bench="$2" when=after-bench i found=0 sessions=-
  while kill -0 "$bench" 2>/dev/null; do
    if wave_over && fleet_back; then
      when=back
      break
    fi
    sleep 0.5
  done
  local asked=()
  for i in $(seq 0 $((NODES - 1))); do
    rm -f "$RUN_DIR/node-$i/routes-verify.json" "$RUN_DIR/node-$i/routes-verify.status"
    if curl -s -m 1 -o /dev/null "http://127.0.0.1:$((BASE_ADMIN + i))/health/live"; then
      asked+=("$i")
      curl -s -m 60 -o "$RUN_DIR/node-$i/routes-verify.json" -w '%{http_code}' -X POST \
        -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$((BASE_ADMIN + i))/routes/verify" \
        > "$RUN_DIR/node-$i/routes-verify.status" &
    fi
  done
  wait
  for i in "${asked[@]}"; do
    # a check that did not answer 200 counts nothing: say so rather than report it as 0 differences
    if [[ "$(cat "$RUN_DIR/node-$i/routes-verify.status" 2>/dev/null)" != 200 ]]; then
      when="$when,node-$i-failed"
      continue
    fi
    found=$((found + $(jq -r '.found' "$RUN_DIR/node-$i/routes-verify.json")))
    if [[ "$(jq -r '.complete' "$RUN_DIR/node-$i/routes-verify.json")" == false ]]; then
      when="$when,incomplete"
    fi
  done
  ((${#asked[@]} > 0)) || when="$when,no-node-answered"
  if [[ "$SCENARIO" == redis-outage ]]; then
    # the session hashes only (not their :pending and :messages keys), counted with SCAN so Redis is never blocked
    sessions="$(redis-cli -p "$REDIS_PORT" --scan --pattern 'mqttgw:session:{*}' 2>/dev/null | grep -c '}$' || true)"
  fi
  echo "$found $when ${sessions:-0}" > "$out"
}

# outage_bench_figures BENCH_OUT T_OUT SECONDS: "failed acked" from the bench's per-second lines between run time
# T_OUT and T_OUT + SECONDS: failed connect attempts (each line counts those since the one before) and QoS 1
# PUBACKs the devices received (each line's rate times the time since the line before)
outage_bench_figures() {
  awk -v t="$2" -v d="$3" 'BEGIN { e = t + d }
    match($0, /^\[ *[0-9.]+s\]/) { s = substr($0, 2, RLENGTH - 3) + 0
      if (s > t && s <= e) {
        if (match($0, /fail\/s [0-9]+/)) f += substr($0, RSTART + 7, RLENGTH - 7)
        if (match($0, /ack\/s [0-9.]+/) && last != "") a += substr($0, RSTART + 6, RLENGTH - 6) * (s - last) }
      last = s }
    END { printf "%d %.0f", f, a }' "$1"
}

# outage_node_figures FILE VICTIM OUTAGE_MS BACK_MS END_MS: from fleet_figures samples, over the nodes but VICTIM:
# "connects peaks disconnects drain": CONNACKs accepted from OUTAGE_MS to BACK_MS, each node's largest route work
# from OUTAGE_MS to END_MS ("a/b/..", the victim "-"), devices the nodes closed in that time, and seconds from
# BACK_MS until no node had route work left for the rest of the window ("never" if one still had some at the end)
outage_node_figures() {
  awk -v victim="$2" -v o="$3" -v b="$4" -v e="$5" -v nodes="$NODES" '
    $2 == victim || $1 > e { next }
    { n = $2
      if ($1 < o) { c0[n] = $5; d0[n] = $7; next }
      if ($1 <= b) c1[n] = $5
      d1[n] = $7
      if ($6 > peak[n]) peak[n] = $6; seen[n] = 1
      if ($1 >= b) { if (!($1 in at)) { at[$1] = 1; ts[++k] = $1 } if ($6 > 0) busy[$1] = 1 } }
    END { for (n = 0; n < nodes; n++) { if (n in c1) c += c1[n] - c0[n]; if (n in d1) d += d1[n] - d0[n]
          p = p (n ? "/" : "") (n in seen ? peak[n] + 0 : "-") }
      drain = sprintf("%.1f", 0); last = 0
      for (i = 1; i <= k; i++) if (ts[i] in busy) last = i
      if (last == k && k > 0) drain = "never"
      else if (last > 0) drain = sprintf("%.1f", (ts[last + 1] - b) / 1000)
      printf "%d %s %d %s", c, p, d, drain }' "$1"
}
