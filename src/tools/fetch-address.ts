/**
 * Which addresses `web_fetch` may connect to: none of the host's own, loopback, link-local,
 * private, shared (CGNAT), multicast or reserved ranges, in IPv4 or IPv6 (IPv4-mapped and 6to4
 * addresses judged by the IPv4 address they carry), unless the operator allowed the range.
 *
 * Boundary rule: pure decisions over address text and an allow-list; resolving names and
 * connecting are the caller's, which must connect only to an address judged here.
 */
import { BlockList, isIPv4, isIPv6 } from "node:net";

/** Why addresses in a range are refused. */
const refusedIPv4: ReadonlyArray<[string, number, string]> = [
  ["0.0.0.0", 8, "an unspecified address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a shared (CGNAT) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "a reserved address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a reserved (benchmarking) address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];
const refusedIPv6: ReadonlyArray<[string, number, string]> = [
  ["::", 128, "an unspecified address"],
  ["::1", 128, "a loopback address"],
  ["fc00::", 7, "a private (unique local) address"],
  ["fe80::", 10, "a link-local address"],
  ["fec0::", 10, "a site-local address"],
  ["ff00::", 8, "a multicast address"],
  ["100::", 64, "a discard address"],
];

/** The IPv4 address an IPv6 address carries (IPv4-mapped `::ffff:a.b.c.d`, 6to4 `2002:AABB:CCDD::`), if any. */
export function embeddedIPv4(address: string): string | null {
  const groups = expandIPv6(address);
  if (groups === null) return null;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeroUntil = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zeroUntil(5) && groups[5] === 0xffff) return v4(groups[6] ?? 0, groups[7] ?? 0);
  if (groups[0] === 0x2002) return v4(groups[1] ?? 0, groups[2] ?? 0);
  // NAT64 (64:ff9b::/96) carries the IPv4 address it translates to.
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return v4(groups[6] ?? 0, groups[7] ?? 0);
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed), or null. */
function expandIPv6(address: string): number[] | null {
  if (!isIPv6(address)) return null;
  let text = address.replace(/%.*$/, "");
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const start = parse(head);
  const end = tail === undefined ? [] : parse(tail);
  const middle = tail === undefined ? [] : Array<number>(8 - start.length - end.length).fill(0);
  const groups = [...start, ...middle, ...end];
  return groups.length === 8 ? groups : null;
}

/** The operator's allow-list: CIDR ranges `web_fetch` may reach although they are refused by default. */
export class AddressAllowList {
  private readonly list = new BlockList();

  /** Builds the list from CIDR texts such as "127.0.0.1/32" or "fd00::/8"; throws TypeError for a bad one. */
  constructor(readonly ranges: readonly string[]) {
    for (const range of ranges) {
      const [network = "", prefixText] = range.split("/");
      const family = isIPv4(network) ? "ipv4" : isIPv6(network) ? "ipv6" : null;
      const prefix = Number(prefixText ?? (family === "ipv4" ? 32 : 128));
      const widest = family === "ipv4" ? 32 : 128;
      if (family === null || !Number.isInteger(prefix) || prefix < 0 || prefix > widest) {
        throw new TypeError(`"${range}" is not an address range such as 127.0.0.1/32 or fd00::/8`);
      }
      this.list.addSubnet(network, prefix, family);
    }
  }

  /** Whether `address` lies in one of the ranges. */
  allows(address: string): boolean {
    return this.list.check(address, isIPv4(address) ? "ipv4" : "ipv6");
  }
}

/**
 * Why `web_fetch` must not connect to `address`, or null when it may: the host's own addresses
 * (`hostAddresses`) and the refused ranges, unless `allowed` lists the address.
 */
export function addressProblem(
  address: string,
  hostAddresses: ReadonlySet<string>,
  allowed: AddressAllowList,
): string | null {
  if (allowed.allows(address)) return null;
  const carried = embeddedIPv4(address);
  if (carried !== null) return addressProblem(carried, hostAddresses, allowed);
  if (!isIPv4(address) && !isIPv6(address)) return "not an IP address";
  const family = isIPv4(address) ? "ipv4" : "ipv6";
  const refused = refusedRanges.find((range) => range.family === family && range.list.check(address, family));
  if (refused !== undefined) return refused.why;
  return hostAddresses.has(address) ? "an address of this machine" : null;
}

/** Each refused range as a `BlockList` of its own, so the reason comes with the match. */
const refusedRanges = [
  ...refusedIPv4.map(([network, prefix, why]) => rangeOf(network, prefix, "ipv4", why)),
  ...refusedIPv6.map(([network, prefix, why]) => rangeOf(network, prefix, "ipv6", why)),
];

function rangeOf(network: string, prefix: number, family: "ipv4" | "ipv6", why: string) {
  const list = new BlockList();
  list.addSubnet(network, prefix, family);
  return { family, list, why };
}
