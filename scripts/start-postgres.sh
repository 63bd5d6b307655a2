#!/bin/sh
# Start a throwaway PostgreSQL 15 cluster with pgvector and print its DATABASE_URL (last line of stdout).
#   usage: scripts/start-postgres.sh DATADIR PORT [DBNAME=mnemo]
# What the test suite's Postgres pass (scripts/test-postgres.sh) and the tests that restart a server
# of their own (test/fixtures/postgres-cluster.ts) start; it needs the server installed (Debian:
# postgresql-15, and pgvector built for it), nothing else of the machine.
# Idempotent: an existing cluster in DATADIR is reused, a running one is left running.
# Trust auth, listens on 127.0.0.1 only, socket in DATADIR. Stop it with the command it prints.
# Extra server settings: PG_OPTS='-c max_connections=200 -c shared_buffers=256MB' start-postgres.sh ...
# The server's programs: PG_BIN (default /usr/lib/postgresql/15/bin, Debian's place).
set -eu

DATA=${1:?usage: start-postgres.sh DATADIR PORT [DBNAME]}
PORT=${2:?usage: start-postgres.sh DATADIR PORT [DBNAME]}
DB=${3:-mnemo}
BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_OPTS=${PG_OPTS:-}

mkdir -p "$DATA"
DATA=$(cd "$DATA" && pwd)

# postgres refuses to run as root: run the server tools as the `postgres` user then.
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir "$DATA" --shell /bin/sh postgres
  chown postgres "$DATA"
  as_pg() { su postgres -s /bin/sh -c "$*"; }
  # A root-only parent (mktemp -d is mode 700) hides DATADIR from the postgres user.
  as_pg "test -w '$DATA'" || { echo "the postgres user cannot reach $DATA: use a directory whose parents are world-executable (chmod 755 the mktemp dir)" >&2; exit 1; }
else
  as_pg() { sh -c "$*"; }
fi
chmod 700 "$DATA"

if [ ! -f "$DATA/PG_VERSION" ]; then
  as_pg "'$BIN/initdb' -D '$DATA' -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8" >/dev/null
fi

if ! as_pg "'$BIN/pg_ctl' -D '$DATA' status" >/dev/null 2>&1; then
  as_pg "'$BIN/pg_ctl' -D '$DATA' -l '$DATA/postgres.log' -w -t 120 \
    -o \"-p $PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories='$DATA' $PG_OPTS\" start" >/dev/null
fi

PSQL="'$BIN/psql' -X -q -v ON_ERROR_STOP=1 -h '$DATA' -p $PORT -U postgres"
if [ -z "$(as_pg "$PSQL -d postgres -tAc \"SELECT 1 FROM pg_database WHERE datname = '$DB'\"")" ]; then
  as_pg "$PSQL -d postgres -c 'CREATE DATABASE \"$DB\"'"
fi
as_pg "$PSQL -d '$DB' -c 'SET client_min_messages = warning; CREATE EXTENSION IF NOT EXISTS vector'"

echo "# pgvector $(as_pg "$PSQL -d '$DB' -tAc \"SELECT extversion FROM pg_extension WHERE extname = 'vector'\"") on $(as_pg "$PSQL -d '$DB' -tAc 'SHOW server_version'"), log: $DATA/postgres.log" >&2
echo "# stop: $( [ "$(id -u)" -eq 0 ] && echo "su postgres -s /bin/sh -c \"$BIN/pg_ctl -D $DATA stop -m fast\"" || echo "$BIN/pg_ctl -D $DATA stop -m fast")" >&2
echo "postgres://postgres@127.0.0.1:$PORT/$DB"
