#!/usr/bin/env bash
# `pnpm test:citus`: starts a Citus cluster of its own (a coordinator and two workers, see
# cluster.sh), runs the scenarios of reliability/src/citus against it, and removes it afterwards.
#   deploy/citus/run.sh [--short | --router] [vitest arguments]
#     --short: migrate and one shard move under load
#     --router: the server's checks against the cluster only (CI): `migrate` places every table, and
#       every per-tenant statement is a router query (apps/server/src/db/router-queries.test.ts)
# Needs root (cluster.sh runs PostgreSQL as postgres) and the server built (`pnpm build`).
# CITUS_DIR and CITUS_PORT choose the cluster's data directory and coordinator port; their
# defaults here differ from cluster.sh's, so a cluster started by hand keeps running.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

profile=full
args=()
for arg in "$@"; do
  case "$arg" in
    --short) profile=short ;;
    --router) profile=router ;;
    *) args+=("$arg") ;;
  esac
done

[ "$(id -u)" = 0 ] || { echo "test:citus needs root (cluster.sh runs PostgreSQL as postgres)" >&2; exit 1; }
[ -f "$root/apps/server/dist/main.js" ] ||
  { echo "build the server first: pnpm build" >&2; exit 1; }

export CITUS_DIR=${CITUS_DIR:-/tmp/customer-api-citus-test}
export CITUS_PORT=${CITUS_PORT:-5580}
[ "$CITUS_DIR" != /tmp/customer-api-citus ] && [ "$CITUS_PORT" != 5480 ] ||
  { echo "test:citus: CITUS_DIR and CITUS_PORT must differ from cluster.sh's defaults" >&2; exit 1; }

summary=$(mktemp)
cleanup() {
  "$here/cluster.sh" down >/dev/null 2>&1 || true
  rm -f "$summary"
}
trap cleanup EXIT
"$here/cluster.sh" up 2

status=0
if [ "$profile" = router ]; then
  (
    cd "$root/apps/server"
    TEST_REQUIRE_CITUS=1 TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$CITUS_PORT/test" \
      ./node_modules/.bin/vitest run src/db/router-queries.test.ts src/db/distribute.test.ts "${args[@]}"
  ) || status=$?
  exit $status
fi
(
  cd "$root/reliability"
  env CITUS_PROFILE="$profile" CITUS_SUMMARY_FILE="$summary" \
    ./node_modules/.bin/vitest run --config vitest.citus.config.ts "${args[@]}"
) || status=$?
cat "$summary"
exit $status
