/**
 * A digest of a node's provider profiles, published in `nodes` so that nodes whose profiles
 * differ can be told apart (a session's turns run with the profiles of whichever node owns it).
 *
 * Boundary rule: secrets never enter it: a profile's `apiKey` is left out and of its `headers`
 * only the names count. Everything else of each profile, and which one is active, does.
 */
import { createHash } from "node:crypto";
import type { ProviderConfig } from "../../home/provider-config.js";

/** The first 16 hex digits of SHA-256 over the profiles as canonical JSON, secrets left out. */
export function profilesDigest(config: Pick<ProviderConfig, "active" | "providers">): string {
  const profiles = Object.entries(config.providers)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, profile]) => {
      const { apiKey: _secret, headers, ...rest } = profile;
      return [name, { ...rest, headers: Object.keys(headers ?? {}).sort() }];
    });
  const text = canonical({ active: config.active ?? null, profiles });
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** JSON with object keys sorted, so equal configurations give equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, inner]) => inner !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonical(inner)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
