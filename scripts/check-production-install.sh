#!/usr/bin/env bash
# The production install, as a deployment makes it: the built service (`npm run build`, here or in a
# build stage) with package.json and package-lock.json copied to an empty directory, then
# `npm ci --omit=dev` (no compiler there: `prepare` says it does not build) and the service `npm start`
# runs (started as node itself, as a container's entry point would: npm reports a signal as exit 143),
# which must answer /livez and /readyz and exit 0 on SIGTERM. Prints the install's size.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/functions/node.js ] || npm run build --silent
DIR=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT
PID=
mkdir -p "$DIR/scripts" && cp scripts/prepare.mjs "$DIR/scripts/"
cp -r package.json package-lock.json bin build "$DIR/"
(cd "$DIR" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
[ -d "$DIR/node_modules/vitest" ] && { echo "production install: dev dependencies were installed" >&2; exit 1; }
echo "production install: node_modules $(du -sh "$DIR/node_modules" | cut -f1)"
(cd "$DIR" && PORT=0 DATA_DIR="$DIR/data" LOG_LEVEL=info exec node build/functions/node.js) 2>"$DIR/stderr" &
PID=$!
for _ in $(seq 1 240); do
  URL=$(grep -o '"listening on [^"]*"' "$DIR/stderr" | sed 's/"listening on \(.*\)"/\1/' || true)
  [ -n "$URL" ] && break
  kill -0 "$PID" 2>/dev/null || { cat "$DIR/stderr" >&2; echo "production install: the service exited" >&2; exit 1; }
  sleep 0.5
done
[ -n "$URL" ] || { cat "$DIR/stderr" >&2; echo "production install: not listening after 120 s" >&2; exit 1; }
# node's fetch rather than curl: CI images need not have curl.
probe() { node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$1"; }
probe "$URL/livez" || { cat "$DIR/stderr" >&2; echo "production install: /livez failed" >&2; exit 1; }
probe "$URL/readyz" || { cat "$DIR/stderr" >&2; echo "production install: /readyz failed" >&2; exit 1; }
kill -TERM "$PID"
wait "$PID"
echo "production install: the service served $URL/livez and /readyz, and stopped cleanly"
