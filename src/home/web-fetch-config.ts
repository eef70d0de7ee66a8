/**
 * The `webFetch` section of config.json: `{"allowAddresses": ["127.0.0.1/32", "10.1.0.0/16"]}`,
 * the address ranges `web_fetch` may reach although they are loopback, private, link-local or
 * this machine's (refused otherwise).
 *
 * Boundary rule: the section's format only; what a range means is src/tools/fetch-address.ts's.
 */
import { isIPv4, isIPv6 } from "node:net";

/** The `webFetch` section. */
export interface WebFetchConfig {
  allowAddresses?: string[];
}

/** Most ranges `allowAddresses` may list. */
const maxRanges = 64;

/** Validates the `webFetch` value; `fail` throws with the reason. */
export function parseWebFetchConfig(value: unknown, fail: (reason: string) => never): WebFetchConfig {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(`"webFetch" must be an object`);
  const { allowAddresses, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) fail(`"webFetch" has unknown key "${unknown[0]}" (known: allowAddresses)`);
  if (allowAddresses === undefined) return {};
  if (!Array.isArray(allowAddresses) || allowAddresses.length > maxRanges) {
    fail(`"webFetch.allowAddresses" must be an array of at most ${maxRanges} address ranges`);
  }
  return {
    allowAddresses: (allowAddresses as unknown[]).map((range, index) => {
      if (typeof range !== "string" || !isRange(range)) {
        fail(
          `"webFetch.allowAddresses"[${index}] must be an address range such as "127.0.0.1/32" or "fd00::/8"`,
        );
      }
      return range as string;
    }),
  };
}

function isRange(text: string): boolean {
  const [network = "", prefix, extra] = text.split("/");
  if (extra !== undefined) return false;
  const widest = isIPv4(network) ? 32 : isIPv6(network) ? 128 : -1;
  if (widest < 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= widest;
}
