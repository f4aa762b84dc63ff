#!/usr/bin/env bash
# Creates (`up`) or removes (`down`) the HA test's hosts: a network namespace `ha-<host>` per
# host, each with an `eth0` on one bridge (in namespace `ha-sw`) and its address from hosts.env.
# `down` kills every process left in them first. Needs root and iproute2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=hosts.env
. "$here/hosts.env"

HOSTS="etcd pg1 pg2 lb api1 api2 disp1 redis client"
prefix=${HA_SUBNET#*/}

address_of() {
  local var
  var="HA_$(echo "$1" | tr '[:lower:]' '[:upper:]')"
  echo "${!var}"
}

up() {
  down quiet
  ip netns add ha-sw
  ip -n ha-sw link set lo up
  ip -n ha-sw link add br0 type bridge
  ip -n ha-sw link set br0 up
  for host in $HOSTS; do
    ns=ha-$host
    ip netns add "$ns"
    ip link add eth0 netns "$ns" type veth peer name "$host" netns ha-sw
    ip -n ha-sw link set "$host" master br0 up
    # The loopback range is routed on eth0: lo keeps 127.0.0.1 alone, and the kernel is told to
    # accept 127/8 addresses off lo.
    ip -n "$ns" link set lo up
    ip -n "$ns" addr del 127.0.0.1/8 dev lo
    ip -n "$ns" addr add 127.0.0.1/32 dev lo
    ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.default.route_localnet=1
    ip netns exec "$ns" sysctl -qw net.ipv4.conf.eth0.route_localnet=1
    ip -n "$ns" addr add "$(address_of "$host")/$prefix" dev eth0
    ip -n "$ns" link set eth0 up
  done
  # The load balancer has a second address for its PostgreSQL frontends, so that a host can be
  # cut from the database while HAProxy still reaches it over HTTP.
  ip -n ha-lb addr add "$HA_LB_DB/$prefix" dev eth0
}

down() {
  for ns in $(ip netns list | awk '{print $1}' | grep -E '^ha-' || true); do
    pids=$(ip netns pids "$ns" || true)
    # shellcheck disable=SC2086
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null || true
    ip netns del "$ns"
  done
  [ "${1:-}" = quiet ] || echo "ha hosts removed"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
