#!/usr/bin/env bash
# `npm test`: the whole suite on the embedded PGlite, then the database-facing tests again on a
# real PostgreSQL 15 + pgvector when this machine has it or TEST_DATABASE_URL names one (always in
# CI, where it is required).
# The dashboard's browser test needs chromium (CHROMIUM_PATH, default /usr/bin/chromium): without
# it that file is skipped with one line, as the Postgres pass is (CI installs chromium, so it runs there).
set -euo pipefail
cd "$(dirname "$0")/.."
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ "$#" -gt 0 ]; then exec npx vitest run "$@"; fi
if [ -x "$CHROMIUM" ]; then
  npx vitest run
else
  if [ "${CI:-}" = "true" ]; then echo "chromium not found at $CHROMIUM: CI must run the browser test" >&2; exit 1; fi
  npx vitest run --exclude 'test/browser/**'
  echo "skipped the browser test (test/browser): chromium not installed at $CHROMIUM (apt-get install chromium, or set CHROMIUM_PATH)" >&2
fi
# The cluster script is the repository's own (scripts/start-postgres.sh): only the server is needed.
# Without one (and without TEST_DATABASE_URL) the pass is skipped with one line; CI requires it.
if [ "${CI:-}" = "true" ]; then bash scripts/test-postgres.sh; else bash scripts/test-postgres.sh --if-available; fi
