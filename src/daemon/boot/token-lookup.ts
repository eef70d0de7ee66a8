/**
 * Named API tokens as the ingress hook looks them up: in the database, on every request, so a
 * revoked token is refused from the next request on, on every node of a cluster (no cache to
 * invalidate). A database that cannot answer is a 503, never a pass.
 */
import type { Principal } from "../http/credential.js";
import { problem } from "../http/problem.js";
import type { TokenLookup } from "../http/request-authority.js";
import { digestsEqual, secretDigest } from "../http/token-secret.js";
import type { ApiTokenStore } from "../storage/api-token-store.js";
import type { ApiTokenRow } from "../storage/api-tokens-table.js";

/** The lookup of the named tokens in `store`. */
export function tokenLookupOf(store: ApiTokenStore): TokenLookup {
  return {
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

function principalOf(row: ApiTokenRow): Principal {
  return { name: row.name, role: row.role, sessionId: row.sessionId };
}
