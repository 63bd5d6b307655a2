#!/usr/bin/env bash
# `npm test`: the whole suite on the embedded PGlite, then the database-facing tests again on a
# real PostgreSQL 15 + pgvector when this machine has it (always in CI, where it is required).
set -euo pipefail
cd "$(dirname "$0")/.."
npx vitest run "$@"
if [ "$#" -gt 0 ]; then exit 0; fi
if [ -f /usr/lib/postgresql/15/lib/vector.so ] || [ -n "${TEST_DATABASE_URL:-}" ] || [ "${CI:-}" = "true" ]; then
  bash scripts/test-postgres.sh
else
  echo "skipped the PostgreSQL pass: PostgreSQL 15 + pgvector not installed (see docs/testing.md)" >&2
fi
