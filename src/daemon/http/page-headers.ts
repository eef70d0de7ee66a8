/**
 * The headers of everything the daemon answers a browser with as a page (the web UI's shell, its
 * assets, a login or pairing redirect, the page that says a pairing link is spent).
 *
 * Boundary rule: constants only.
 */

/** What the page may load and where it may connect: itself only (no inline style or script). */
export const pageSecurityHeaders = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
} as const;
