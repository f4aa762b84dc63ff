#!/usr/bin/env bash
# A Citus cluster on loopback ports: a coordinator and workers, each its own PostgreSQL 15
# instance with Citus loaded, for `pnpm test:citus`, the bench's Citus scenarios and running the
# server's test suite against a coordinator. Builds Citus first when it is missing (root).
#
#   deploy/citus/cluster.sh up [workers]     start (default 2 workers); prints the coordinator's URL
#   deploy/citus/cluster.sh add              start one more worker and add it to the cluster
#   deploy/citus/cluster.sh kill <n>         kill -9 worker n (1-based)
#   deploy/citus/cluster.sh start <n>        start worker n again
#   deploy/citus/cluster.sh down             stop every instance and remove the data
#
# CITUS_DIR (default /tmp/customer-api-citus) holds the data directories; CITUS_PORT (default 5480)
# is the coordinator's port, worker n listens on CITUS_PORT + n. The database `customer_api`
# exists on every node with the extension, and the coordinator knows its workers: point
# DATABASE_URL (or TEST_DATABASE_URL) at postgres://postgres@127.0.0.1:$CITUS_PORT/customer_api.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
dir=${CITUS_DIR:-/tmp/customer-api-citus}
base=${CITUS_PORT:-5480}
bin=/usr/lib/postgresql/15/bin
db=customer_api

[ "$(id -u)" = 0 ] || { echo "citus cluster: needs root (builds Citus, runs PostgreSQL as postgres)" >&2; exit 1; }

ensure_citus() {
  [ -x "$bin/postgres" ] || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null
  }
  [ -f "$($bin/pg_config --pkglibdir 2>/dev/null || echo /usr/lib/postgresql/15/lib)/citus.so" ] && return 0
  local build
  for build in "${CITUS_BUILD_SCRIPT:-}" "$root/../shared/citus/build.sh" /work/shared/citus/build.sh; do
    [ -n "$build" ] && [ -x "$build" ] && { "$build"; return 0; }
  done
  echo "citus cluster: Citus is not installed and no build script was found (set CITUS_BUILD_SCRIPT to shared/citus/build.sh)" >&2
  exit 1
}

as_pg() { runuser -u postgres -- "$@"; }
psql_at() { local port=$1; shift; as_pg "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@"; }
port_of() { echo $((base + $1)); }
answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start_node() {
  local n=$1 port
  port=$(port_of "$n")
  as_pg "$bin/pg_ctl" -D "$dir/node$n" -l "$dir/node$n.log" -w -t 60 -o "-p $port" start >/dev/null
}

init_node() {
  local n=$1 port data
  port=$(port_of "$n")
  data="$dir/node$n"
  as_pg "$bin/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  cat >>"$data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
shared_preload_libraries = 'citus'
wal_level = logical
# Shard moves replicate through Citus' own logical decoding plugin (PostgreSQL 15.20 lists the
# libraries allowed as output plugins).
output_plugin_libraries = 'pgoutput, test_decoding, citus'
max_prepared_transactions = 200
max_connections = 400
max_wal_senders = 20
max_replication_slots = 20
shared_buffers = 128MB
citus.shard_count = 12
citus.node_conninfo = 'sslmode=disable'
citus.enable_create_database_propagation = off
log_min_messages = warning
EOF
  start_node "$n"
  psql_at "$port" -d postgres -c "CREATE DATABASE $db" -c "CREATE DATABASE test"
  psql_at "$port" -d "$db" -c 'CREATE EXTENSION citus'
  psql_at "$port" -d test -c 'CREATE EXTENSION citus'
}

join_worker() {
  local n=$1 port
  port=$(port_of "$n")
  for database in "$db" test; do
    psql_at "$base" -d "$database" -c "SELECT citus_add_node('127.0.0.1', $port)" >/dev/null
  done
}

workers_now() { ls -d "$dir"/node* 2>/dev/null | grep -c 'node[1-9][0-9]*$' || true; }

case "${1:-}" in
  up)
    count=${2:-2}
    ensure_citus
    "$0" down >/dev/null 2>&1 || true
    mkdir -p "$dir"
    chown postgres:postgres "$dir"
    for n in $(seq 0 "$count"); do init_node "$n"; done
    for database in "$db" test; do
      psql_at "$base" -d "$database" -c "SELECT citus_set_coordinator_host('127.0.0.1', $base)" >/dev/null
    done
    for n in $(seq 1 "$count"); do join_worker "$n"; done
    echo "postgres://postgres@127.0.0.1:$base/$db"
    ;;
  add)
    n=$(($(workers_now) + 1))
    init_node "$n"
    join_worker "$n"
    echo "worker $n on 127.0.0.1:$(port_of "$n")"
    ;;
  kill)
    n=${2:?worker number}
    pid=$(head -1 "$dir/node$n/postmaster.pid")
    kill -9 "$pid"
    # The postmaster's children notice its death and exit; wait until the port is closed.
    for _ in $(seq 1 50); do answers "$(port_of "$n")" || break; sleep 0.1; done
    ;;
  start)
    n=${2:?worker number}
    start_node "$n"
    ;;
  down)
    for data in "$dir"/node*; do
      [ -d "$data" ] || continue
      as_pg "$bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
    done
    rm -rf "$dir"
    ;;
  *)
    sed -n '2,15p' "$0" >&2
    exit 2
    ;;
esac
