#!/usr/bin/env bash
# Builds the container image's base without a registry or a container daemon: a Debian 12 root file system with
# the headless OpenJDK 17 runtime (debootstrap from the Debian mirror), the user the gateway runs as (uid/gid 10001,
# mqtt-gateway) and its writable directories, written as a Docker image tarball that Jib reads with
# `tar://` (`./mvnw -Pimage package`). Where a registry is reachable, use a published JRE image instead (see
# README, "Container image"). Needs root (debootstrap), debootstrap and python3.
#   usage: deploy/image/build-base.sh OUTPUT.tar [MIRROR]     (about 150 MB from the mirror, a few minutes)
set -euo pipefail
out="${1:?usage: build-base.sh OUTPUT.tar [MIRROR]}"
mirror="${2:-http://deb.debian.org/debian}"
[ "$(id -u)" = 0 ] || { echo "build-base.sh: debootstrap needs root" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "build-base.sh: apt-get install debootstrap" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# ROOTFS: a root file system made earlier by the same debootstrap command (changed in place)
root="${ROOTFS:-$work/rootfs}"
if [ -z "${ROOTFS:-}" ]; then
  debootstrap --variant=minbase --include=openjdk-17-jre-headless,ca-certificates bookworm "$root" "$mirror" >&2
fi
chroot "$root" groupadd --system --gid 10001 mqtt-gateway
chroot "$root" useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/mqtt-gateway --no-create-home \
  --shell /usr/sbin/nologin mqtt-gateway
install -d -o 10001 -g 10001 -m 0750 "$root/var/lib/mqtt-gateway" "$root/var/log/mqtt-gateway"
install -d -m 0755 "$root/etc/mqtt-gateway"
# nothing of the package manager's caches and logs in the image
rm -rf "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/* "$root"/var/log/*.log "$root"/var/log/apt/* \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
chown 10001:10001 "$root/var/log/mqtt-gateway"
tar --numeric-owner --sort=name -C "$root" -cf "$work/layer.tar" .
python3 - "$work" "$out" <<'PY'
import hashlib, json, os, sys, tarfile
work, out = sys.argv[1], sys.argv[2]
layer = os.path.join(work, "layer.tar")
h = hashlib.sha256()
with open(layer, "rb") as f:
    for chunk in iter(lambda: f.read(1 << 20), b""):
        h.update(chunk)
config = {"architecture": "amd64" if os.uname().machine == "x86_64" else "arm64", "os": "linux",
          "config": {"Env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                             "JAVA_HOME=/usr/lib/jvm/java-17-openjdk-" + ("amd64" if os.uname().machine == "x86_64" else "arm64")]},
          "rootfs": {"type": "layers", "diff_ids": ["sha256:" + h.hexdigest()]}, "history": [{"created_by": "deploy/image/build-base.sh"}]}
cfg = json.dumps(config).encode()
cfg_name = hashlib.sha256(cfg).hexdigest() + ".json"
with open(os.path.join(work, cfg_name), "wb") as f:
    f.write(cfg)
manifest = [{"Config": cfg_name, "RepoTags": ["mqtt-gateway-base:bookworm-jre17"], "Layers": ["layer.tar"]}]
with open(os.path.join(work, "manifest.json"), "w") as f:
    json.dump(manifest, f)
with tarfile.open(out, "w") as t:
    for name in ("manifest.json", cfg_name, "layer.tar"):
        t.add(os.path.join(work, name), arcname=name)
PY
echo "build-base.sh: wrote $out" >&2
