#!/usr/bin/env bash
# Starts the engine of one HA test host in the foreground (run inside its namespace):
#   start-host.sh etcd|pg1|pg2|lb|redis
# State goes under $HA_RUN_DIR. API and dispatch processes are started by the test itself.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
set -a
# shellcheck source=hosts.env
. "$here/hosts.env"
set +a
run=${HA_RUN_DIR:?HA_RUN_DIR names the directory for this run\'s state}

case "${1:-}" in
  etcd)
    mkdir -p "$run/etcd"
    exec etcd --name etcd1 --data-dir "$run/etcd" \
      --listen-client-urls "http://$HA_ETCD:2379" --advertise-client-urls "http://$HA_ETCD:2379" \
      --listen-peer-urls "http://$HA_ETCD:2380" --initial-advertise-peer-urls "http://$HA_ETCD:2380" \
      --initial-cluster "etcd1=http://$HA_ETCD:2380" --initial-cluster-state new \
      --initial-cluster-token customer-api-ha --log-level warn
    ;;
  pg1 | pg2)
    node=$1
    var="HA_$(echo "$node" | tr '[:lower:]' '[:upper:]')"
    address=${!var}
    mkdir -p "$run/$node"
    chown postgres:postgres "$run/$node"
    chmod 700 "$run/$node"
    umask 077
    exec runuser -u postgres -- env \
      PATRONI_NAME="$node" \
      PATRONI_RESTAPI_LISTEN="$address:8008" PATRONI_RESTAPI_CONNECT_ADDRESS="$address:8008" \
      PATRONI_POSTGRESQL_LISTEN="$address:5432" PATRONI_POSTGRESQL_CONNECT_ADDRESS="$address:5432" \
      PATRONI_POSTGRESQL_DATA_DIR="$run/$node/data" PATRONI_POSTGRESQL_PGPASS="$run/$node/pgpass" \
      PATRONI_ETCD3_HOSTS="$HA_ETCD:2379" \
      patroni "$here/patroni.yml"
    ;;
  lb)
    exec haproxy -db -f "$here/haproxy.cfg"
    ;;
  redis)
    mkdir -p "$run/redis"
    exec redis-server "$here/redis.conf" --bind "$HA_REDIS" --dir "$run/redis"
    ;;
  *)
    echo "usage: $0 etcd|pg1|pg2|lb|redis" >&2
    exit 2
    ;;
esac
