#!/usr/bin/env bash
# `pnpm test:ha`: builds the HA test's hosts (network namespaces), runs the scenarios of
# reliability/src/ha inside the `client` host, and removes every host and process afterwards.
#   deploy/ha/run.sh [--short] [vitest arguments]    --short: one failover (what CI runs)
# Needs root, iproute2 and the server built (`pnpm build`); installs Debian's patroni,
# etcd-server, haproxy, redis-server, iptables and postgresql-15 when missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

profile=full
args=()
for arg in "$@"; do
  case "$arg" in
    --short) profile=short ;;
    *) args+=("$arg") ;;
  esac
done

[ "$(id -u)" = 0 ] || { echo "test:ha needs root (network namespaces)" >&2; exit 1; }
command -v ip >/dev/null || { echo "test:ha needs iproute2 (ip)" >&2; exit 1; }
[ -f "$root/apps/server/dist/main.js" ] ||
  { echo "build the server first: pnpm build" >&2; exit 1; }

missing=()
for pair in patroni:patroni etcd:etcd-server haproxy:haproxy redis-server:redis-server \
  iptables:iptables /usr/lib/postgresql/15/bin/postgres:postgresql-15; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} from Debian's archive"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The Debian packages start their own services; the test runs its own engines in its hosts.
for service in patroni etcd haproxy; do
  command -v systemctl >/dev/null && systemctl stop "$service" 2>/dev/null || true
done

summary=$(mktemp)
cleanup() {
  "$here/hosts.sh" down >/dev/null
  rm -f "$summary"
}
trap cleanup EXIT
"$here/hosts.sh" up

status=0
(
  cd "$root/reliability"
  ip netns exec ha-client env HA_PROFILE="$profile" HA_SUMMARY_FILE="$summary" \
    ./node_modules/.bin/vitest run --config vitest.ha.config.ts "${args[@]}"
) || status=$?
cat "$summary"
exit $status
