#!/usr/bin/env bash
# The suite's database-facing tests (HTTP, database, worker, CLI, service, examples) on a real multi-connection
# PostgreSQL 15 with pgvector: a throwaway cluster started here with scripts/start-postgres.sh and
# stopped afterwards. With TEST_DATABASE_URL already set, that server is used instead.
#   usage: scripts/test-postgres.sh [--if-available] [vitest arguments, e.g. a file]
# --if-available (what `npm test` passes outside CI): without a server to use, say so in one line and
# exit 0 instead of failing. The server's programs: PG_BIN (default /usr/lib/postgresql/15/bin).
set -euo pipefail
cd "$(dirname "$0")/.."

IF_AVAILABLE=false
if [ "${1:-}" = "--if-available" ]; then IF_AVAILABLE=true; shift; fi
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
export PG_BIN
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  # Debian's layout: the server's programs in PG_BIN, its extension libraries in ../lib beside them.
  if [ ! -x "$PG_BIN/pg_ctl" ] || [ ! -f "$PG_BIN/../lib/vector.so" ]; then
    WHY="PostgreSQL 15 with pgvector not found in $PG_BIN (install postgresql-15 and pgvector, or set PG_BIN or TEST_DATABASE_URL; see docs/testing.md)"
    if [ "$IF_AVAILABLE" = true ]; then echo "skipped the PostgreSQL pass: $WHY" >&2; exit 0; fi
    echo "$WHY" >&2
    exit 1
  fi
  # A world-traversable parent: as root the server runs as the postgres user.
  DIR=$(mktemp -d /tmp/mnemo-test-pg.XXXXXX)
  chmod 755 "$DIR"
  # Set before the start, so a start that fails leaves no directory (or half-started server) behind.
  stop() {
    if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/sh -c "'$PG_BIN/pg_ctl' -D '$DIR/data' -m immediate stop" >/dev/null 2>&1 || true
    else "$PG_BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$DIR"
  }
  trap stop EXIT
  PORT=$((55000 + RANDOM % 5000))
  PG_OPTS="-c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    sh scripts/start-postgres.sh "$DIR/data" "$PORT" mnemo >"$DIR/url" 2>"$DIR/start.log" || { cat "$DIR/start.log" >&2; exit 1; }
  TEST_DATABASE_URL=$(tail -1 "$DIR/url")
  export TEST_DATABASE_URL
fi
echo "tests on PostgreSQL: $TEST_DATABASE_URL"
if [ "$#" -gt 0 ]; then npx vitest run "$@"; else npx vitest run test/http test/database test/worker test/cli test/service test/examples; fi
