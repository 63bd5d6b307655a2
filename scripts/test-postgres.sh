#!/usr/bin/env bash
# The suite's database-facing tests (HTTP, database, worker, CLI, service, examples) on a real multi-connection
# PostgreSQL 15 with pgvector: a throwaway cluster from the team's postgres tooling
# (PG_TOOLS_DIR, default ../shared/postgres), started here and stopped afterwards.
# Extra arguments go to vitest (e.g. a file). With TEST_DATABASE_URL already set, that server is used.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=${PG_TOOLS_DIR:-$(cd .. && pwd)/shared/postgres}
export PG_TOOLS_DIR=$TOOLS
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  if [ ! -x /usr/lib/postgresql/15/bin/pg_ctl ] || [ ! -f /usr/lib/postgresql/15/lib/vector.so ]; then
    echo "PostgreSQL 15 with pgvector is not installed: run (as root) $TOOLS/install-pgvector.sh" >&2
    exit 1
  fi
  # A world-traversable parent: as root the server runs as the postgres user.
  DIR=$(mktemp -d /tmp/mnemo-test-pg.XXXXXX)
  chmod 755 "$DIR"
  PORT=$((55000 + RANDOM % 5000))
  PG_OPTS="-c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    sh "$TOOLS/start-postgres.sh" "$DIR/data" "$PORT" mnemo >"$DIR/url" 2>"$DIR/start.log" || { cat "$DIR/start.log" >&2; exit 1; }
  stop() {
    if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/sh -c "/usr/lib/postgresql/15/bin/pg_ctl -D '$DIR/data' -m immediate stop" >/dev/null 2>&1 || true
    else /usr/lib/postgresql/15/bin/pg_ctl -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$DIR"
  }
  trap stop EXIT
  export TEST_DATABASE_URL=$(tail -1 "$DIR/url")
fi
echo "tests on PostgreSQL: $TEST_DATABASE_URL"
if [ "$#" -gt 0 ]; then npx vitest run "$@"; else npx vitest run test/http test/database test/worker test/cli test/service test/examples; fi
