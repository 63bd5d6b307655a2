/**
 * What the dashboard's page and script are served with, on Node by its route and on Workers by the
 * static-asset server (`_headers`, written by scripts/build-worker-assets.ts): its own script and
 * API only, inline styles (its one `<style>` block), no framing (clickjacking), no referrer (the
 * page's query names a user).
 */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};
