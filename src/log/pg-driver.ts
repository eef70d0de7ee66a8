/**
 * The pg driver, loaded when PostgreSQL is first opened rather than when the daemon loads.
 *
 * Why: pg's module looks for a Fetch `Response` when it loads (to tell a Cloudflare worker
 * apart), and the first look at that global makes Node load its own copy of undici: about 20 ms
 * of every daemon start, on SQLite too, where pg is never used. In the daemon's bundle this
 * dynamic import runs pg's bundled code on first call, nothing is fetched from outside it.
 */
import type pg from "pg";

let driver: Promise<typeof pg> | undefined;

/** The pg module, loaded once. */
export function pgDriver(): Promise<typeof pg> {
  driver ??= import("pg").then((module) => module.default);
  return driver;
}
