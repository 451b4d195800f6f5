#!/usr/bin/env bash
# End-to-end smoke test of the built distribution deploy/target/mqtt-gateway (run it after ./mvnw verify or
# package): the development PKI, check-config, then the demo gateway over real mutual TLS with the mosquitto
# clients (QoS 1 publish lands in uplink.jsonl, subscribe, a wrong client id refused), /health/ready, /health/live,
# /metrics and operations off, and a
# graceful SIGTERM shutdown. Non-interactive; every wait has a time limit; the gateway is always stopped on exit.
#
# Needs mosquitto_pub, mosquitto_sub (Debian: apt-get install mosquitto-clients), curl and Java 17+.
# Ports, on 127.0.0.1: SMOKE_TLS_PORT (default 18883) and SMOKE_ADMIN_PORT (default 19090).
# Last line: "1 passed, 0 failed" or "0 passed, 1 failed"; the exit status is non-zero on failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
DIST="$ROOT/deploy/target/mqtt-gateway"
GATEWAY="$DIST/bin/gateway"
TLS_PORT="${SMOKE_TLS_PORT:-18883}"
ADMIN_PORT="${SMOKE_ADMIN_PORT:-19090}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mqtt-gateway-smoke.XXXXXX")"
GATEWAY_PID=""
STEP="setup"

# The test must not pick up a configuration override from the caller's environment.
while read -r name; do
  unset "$name"
done < <(compgen -e | grep '^MQTTGW_' || true)

step() {
  STEP="$*"
  echo "--- $*"
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

running() {
  local state
  state="$(ps -o stat= -p "$1" 2>/dev/null || true)"
  [ -n "$state" ] && [ "${state:0:1}" != Z ]
}

# wait_until SECONDS DESCRIPTION COMMAND...: retries COMMAND every 0.2 s until it succeeds or time is up.
wait_until() {
  local limit="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    if [ -n "$GATEWAY_PID" ] && ! running "$GATEWAY_PID"; then
      fail "the gateway exited while waiting for: $what"
    fi
    [ "$SECONDS" -lt "$deadline" ] || fail "timed out after ${limit}s waiting for: $what"
    sleep 0.2
  done
}

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

http_status() {
  curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$ADMIN_PORT$1" || true
}

health_is_200() {
  [ "$(http_status /health/ready)" = 200 ]
}

finish() {
  local status=$?
  trap - EXIT
  if [ -n "$GATEWAY_PID" ] && running "$GATEWAY_PID"; then
    kill -TERM "$GATEWAY_PID" 2>/dev/null || true
    local deadline=$((SECONDS + 20))
    while running "$GATEWAY_PID" && [ "$SECONDS" -lt "$deadline" ]; do
      sleep 0.2
    done
    if running "$GATEWAY_PID"; then
      kill -KILL "$GATEWAY_PID" 2>/dev/null || true
    fi
  fi
  if [ "$status" -eq 0 ]; then
    rm -rf "$WORK"
    echo "smoke test passed"
    echo "1 passed, 0 failed"
  else
    if rmdir "$WORK" 2>/dev/null; then
      echo "smoke test failed at: $STEP"
    else
      echo "smoke test failed at: $STEP (files kept in $WORK)"
    fi
    if [ -s "$WORK/gateway.out" ]; then
      echo "--- last lines of the gateway's output:"
      tail -n 40 "$WORK/gateway.out"
    fi
    echo "0 passed, 1 failed"
  fi
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM

step "preconditions"
{ [ -x "$GATEWAY" ] && [ -d "$DIST/lib" ]; } \
  || fail "no built distribution at $DIST: run ./mvnw -B -DskipTests package (or verify) first"
for tool in mosquitto_pub mosquitto_sub curl timeout ps; do
  command -v "$tool" >/dev/null \
    || fail "$tool is not installed (mosquitto clients: apt-get install mosquitto-clients; curl: apt-get install curl)"
done
for port in "$TLS_PORT" "$ADMIN_PORT"; do
  if port_in_use "$port"; then
    fail "port $port is in use; choose free ones with SMOKE_TLS_PORT and SMOKE_ADMIN_PORT"
  fi
done

step "pki writes a CA, a server and 3 device certificates, and gateway.yaml"
timeout 60 "$GATEWAY" pki "$WORK/pki" 3 >"$WORK/pki.out" 2>&1 || fail "gateway pki failed: $(cat "$WORK/pki.out")"
for f in ca.pem ca.key server.pem server.key device-1.pem device-1.key device-3.pem device-3.key gateway.yaml; do
  [ -s "$WORK/pki/$f" ] || fail "pki did not write $f"
done
ca_before="$(cksum <"$WORK/pki/ca.pem")"

step "pki run again leaves an existing PKI alone"
timeout 60 "$GATEWAY" pki "$WORK/pki" 3 >"$WORK/pki2.out" 2>&1 || fail "second gateway pki failed"
grep -q 'nothing written' "$WORK/pki2.out" || fail "second pki run did not say it wrote nothing: $(cat "$WORK/pki2.out")"
[ "$(cksum <"$WORK/pki/ca.pem")" = "$ca_before" ] || fail "second pki run replaced ca.pem"

step "check-config accepts the PKI's gateway.yaml and the shipped sample"
timeout 60 "$GATEWAY" check-config --config "$WORK/pki/gateway.yaml" >"$WORK/check.out" 2>&1 \
  || fail "check-config rejected the PKI's gateway.yaml: $(cat "$WORK/check.out")"
grep -q '^configuration OK' "$WORK/check.out" || fail "check-config printed no OK line: $(cat "$WORK/check.out")"
# the sample points at ../pki/, which a fresh distribution does not have: give it this run's PKI the way an
# operator would, through the environment (check-config builds the TLS context, so the files must be real)
MQTTGW_LISTENER_TLS_CERT_FILE="$WORK/pki/server.pem" MQTTGW_LISTENER_TLS_KEY_FILE="$WORK/pki/server.key" \
  MQTTGW_LISTENER_TLS_CA_FILE="$WORK/pki/ca.pem" \
  timeout 60 "$GATEWAY" check-config --config "$DIST/config/gateway.yaml" >"$WORK/check-sample.out" 2>&1 \
  || fail "check-config rejected config/gateway.yaml: $(cat "$WORK/check-sample.out")"

step "check-config rejects listener.tls.port=99999 with status 2 and one line"
status=0
MQTTGW_LISTENER_TLS_PORT=99999 timeout 60 "$GATEWAY" check-config --config "$WORK/pki/gateway.yaml" \
  >"$WORK/bad.out" 2>"$WORK/bad.err" || status=$?
[ "$status" -eq 2 ] || fail "expected exit status 2, got $status; stderr: $(cat "$WORK/bad.err")"
[ "$(wc -l <"$WORK/bad.err")" -eq 1 ] || fail "expected one line on stderr, got: $(cat "$WORK/bad.err")"
grep -q "listener.tls.port = '99999'" "$WORK/bad.err" || fail "the error does not name the key and value: $(cat "$WORK/bad.err")"

step "demo starts the gateway (TLS port $TLS_PORT, admin port $ADMIN_PORT)"
DEMO_TLS_PORT="$TLS_PORT" DEMO_ADMIN_PORT="$ADMIN_PORT" "$GATEWAY" demo "$WORK/demo" >"$WORK/gateway.out" 2>&1 &
GATEWAY_PID=$!
wait_until 90 "GET /health/ready answering 200" health_is_200

step "the printed mosquitto commands carry the demo's ports and files"
pub="$(grep -m1 '^  mosquitto_pub ' "$WORK/gateway.out" || true)"
sub="$(grep -m1 '^  mosquitto_sub ' "$WORK/gateway.out" || true)"
{ [ -n "$pub" ] && [ -n "$sub" ]; } || fail "demo printed no mosquitto_pub / mosquitto_sub command"
for cmd in "$pub" "$sub"; do
  [[ "$cmd" == *"-p $TLS_PORT "* ]] || fail "printed command does not use port $TLS_PORT: $cmd"
  [[ "$cmd" == *"$WORK/demo/ca.pem"* ]] || fail "printed command does not use $WORK/demo/ca.pem: $cmd"
done
grep -q "curl -i http://localhost:$ADMIN_PORT/health/ready" "$WORK/gateway.out" || fail "demo printed no curl of /health/ready on $ADMIN_PORT"

step "device-2 subscribes with the printed mosquitto_sub (-E: exit once subscribed)"
timeout 30 bash -c "$sub -E" >"$WORK/sub.out" 2>&1 || fail "mosquitto_sub failed: $(cat "$WORK/sub.out")"

step "device-1 publishes at QoS 1 with the printed mosquitto_pub"
timeout 30 bash -c "$pub" >"$WORK/pub.out" 2>&1 || fail "mosquitto_pub failed: $(cat "$WORK/pub.out")"

step "the message is in uplink/uplink.jsonl"
uplink="$WORK/demo/uplink/uplink.jsonl"
uplink_has_hello() {
  grep -q '"client":"device-1","topic":"devices/device-1/telemetry","qos":1,.*"payload":"aGVsbG8="' "$uplink" 2>/dev/null
}
wait_until 15 "the message in $uplink" uplink_has_hello

step "a client id other than the certificate's CN is refused"
status=0
timeout 30 mosquitto_pub -h localhost -p "$TLS_PORT" --cafile "$WORK/demo/ca.pem" --cert "$WORK/demo/device-1.pem" \
  --key "$WORK/demo/device-1.key" -i device-2 -t devices/device-2/telemetry -m spoof -q 1 >"$WORK/spoof.out" 2>&1 \
  || status=$?
{ [ "$status" -ne 0 ] && [ "$status" -ne 124 ]; } || fail "device-1's certificate with client id device-2 was not refused (status $status)"
grep -q '"payload":"c3Bvb2Y="' "$uplink" && fail "the refused client's message reached the uplink"

step "/health/ready, /health/live and /health are 200, operations are off, /metrics counts the QoS 1 publish"
[ "$(http_status /health/ready)" = 200 ] || fail "/health/ready is not 200"
[ "$(http_status /health/live)" = 200 ] || fail "/health/live is not 200"
[ "$(http_status /health)" = 200 ] || fail "/health is not 200"
ops="$(curl -s -o /dev/null -m 5 -w '%{http_code}' -X POST "http://127.0.0.1:$ADMIN_PORT/downlink?client=device-2&topic=devices/device-2/commands" || true)"
[ "$ops" = 404 ] || fail "POST /downlink without a configured operator credential answered $ops, not 404"
curl -s -m 5 "http://127.0.0.1:$ADMIN_PORT/metrics" >"$WORK/metrics.txt" || fail "GET /metrics failed"
grep -Eq '^mqttgw_publish_in_total\{[^}]*qos="1"[^}]*\} [1-9]' "$WORK/metrics.txt" \
  || fail "/metrics has no mqttgw_publish_in_total for qos 1 >= 1"

step "SIGTERM shuts the gateway down gracefully"
kill -TERM "$GATEWAY_PID"
deadline=$((SECONDS + 60))
while running "$GATEWAY_PID"; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the gateway was still running 60s after SIGTERM"
  sleep 0.2
done
status=0
wait "$GATEWAY_PID" || status=$?
GATEWAY_PID=""
# The JVM ends with 128+15 when SIGTERM started its shutdown, after the shutdown hooks (the graceful close) ran.
[ "$status" -eq 0 ] || [ "$status" -eq 143 ] || fail "the gateway exited with status $status after SIGTERM"
grep -q 'shutting down node' "$WORK/gateway.out" || fail "no 'shutting down node' line in the gateway's output"
if port_in_use "$TLS_PORT"; then
  fail "port $TLS_PORT still accepts connections after the gateway exited"
fi
if ! grep -q 'node .* stopped' "$WORK/gateway.out"; then
  echo "note: the final 'node ... stopped' log line was not written before the JVM halted"
fi

step "every JVM profile starts a JVM, with the options the launcher resolves for it"
for profile in g1-small g1-large zgc density; do
  java_home="${JAVA_HOME:-}"
  if [ "$profile" = zgc ]; then
    # generational ZGC needs Java 21+: use one from /usr/lib/jvm when the default is older
    java_home=""
    for candidate in ${JAVA_HOME:-} /usr/lib/jvm/*; do
      [ -x "$candidate/bin/java" ] || continue
      version="$("$candidate/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1 || true)"
      if [ -n "$version" ] && [ "$version" -ge 21 ]; then java_home="$candidate"; break; fi
    done
    if [ -z "$java_home" ]; then
      echo "note: no Java 21+ on this machine; the zgc profile was not started"
      continue
    fi
  fi
  # small sizes so three JVMs with AlwaysPreTouch start quickly on a CI machine
  # (density sizes from the expected connection count, which it requires; GATEWAY_HEAP still overrides)
  mapfile -t options < <(JAVA_HOME="$java_home" GATEWAY_HEAP=64m GATEWAY_DIRECT=32m GATEWAY_LOG_DIR="$WORK/jvm-$profile" \
    GATEWAY_EXPECTED_CONNECTIONS=1000 \
    "$GATEWAY" jvm-options "$profile" | grep -v -e '^-cp$' -e '/lib/\*$')
  printf '%s\n' "${options[@]}" | grep -qx -- '-Xmx64m' || fail "$profile: no -Xmx64m among the resolved options"
  java_bin="${java_home:+$java_home/bin/}java"
  "$java_bin" "${options[@]}" -version >"$WORK/jvm-$profile.out" 2>&1 \
    || fail "the $profile profile does not start a JVM: $(tail -5 "$WORK/jvm-$profile.out")"
done
