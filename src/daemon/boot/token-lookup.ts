/**
 * Named API tokens and paired devices as the ingress hook looks them up: in the database, on every
 * request, so a revoked token or device is refused from the next request on, on every node of a
 * cluster (no cache to invalidate). A database that cannot answer is a 503, never a pass. A
 * device's latest request is written at most once a minute (`skein devices` shows it), after the
 * lookup and never in its way.
 */

import { deviceLoginLifetimeMs } from "../../api/devices.js";
import type { Principal } from "../http/credential.js";
import { problem } from "../http/problem.js";
import type { TokenLookup } from "../http/request-authority.js";
import { digestsEqual, secretDigest } from "../http/token-secret.js";
import type { ApiTokenStore } from "../storage/api-token-store.js";
import type { ApiTokenRow } from "../storage/api-tokens-table.js";
import type { DeviceRow } from "../storage/device-table.js";

/** A device's last-seen time is written again once it is older than this (ms). */
const lastSeenResolutionMs = 60_000;

/** The lookup of the named tokens and devices in `store`. */
export function tokenLookupOf(store: ApiTokenStore, now: () => number = Date.now): TokenLookup {
  return {
    byDeviceCookie: async (cookieValue) => {
      const row = await answered(() => store.devices.byCookieDigest(secretDigest(cookieValue)));
      if (row === null || row.pairedAt === null) return null;
      const expiresAt = row.pairedAt + deviceLoginLifetimeMs;
      const at = now();
      if (expiresAt <= at) return null;
      if (row.lastSeenAt === null || at - row.lastSeenAt >= lastSeenResolutionMs)
        // Best effort: a request is never refused or slowed for a last-seen time.
        void store.devices.touch(row.name, at).catch(() => undefined);
      return { principal: principalOf(row), expiresAt };
    },
    bySecret: async (secret) => {
      const digest = secretDigest(secret);
      const row = await answered(() => store.byDigest(digest));
      return row !== null && digestsEqual(row.digest, digest) ? principalOf(row) : null;
    },
    byName: async (name) => {
      const row = await answered(() => store.byName(name));
      return row === null ? null : principalOf(row);
    },
  };
}

async function answered<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch {
    throw problem("daemon_unavailable", "the database did not answer the token lookup; retry shortly", {
      headers: { "retry-after": "1" },
    });
  }
}

function principalOf(row: ApiTokenRow | DeviceRow): Principal {
  return { name: row.name, role: row.role, sessionId: row.sessionId };
}
