/**
 * The outbound-only network a sandbox gets when it may use the network: a private network
 * namespace whose one way out is slirp4netns (user-mode NAT: a helper process on the host opens
 * an ordinary socket for each connection the sandbox makes), configured so that nothing on the
 * host itself is reachable.
 *
 * Boundary rule: pure. What the namespace is given, from what the host has:
 * - slirp4netns's default network: the sandbox is 10.0.2.100 on `tap0`, its gateway 10.0.2.2
 *   (configured here, not by slirp4netns: see `namespaceSetup`);
 *   the gateway's alias for the host's loopback is turned off (`--disable-host-loopback`) and
 *   so is slirp's DNS forwarder at 10.0.2.3 (it would forward any port to the host's resolver,
 *   which may sit on the host's loopback);
 * - no IPv6 (slirp4netns is started without it): the namespace has no IPv6 route at all;
 * - a `prohibit` rule for every IPv4 address of the host (a service bound to 0.0.0.0 answers on
 *   them, and slirp's socket would be opened on the host) and for link-local 169.254.0.0/16
 *   (cloud metadata services); a socket bound to `tap0` bypasses the rules but then needs an
 *   ARP answer, which slirp gives only for its own addresses;
 * - its own resolv.conf naming the host's nameservers that lie off the host (with a nameserver
 *   on the host's loopback, such as systemd-resolved's 127.0.0.53, its upstream servers).
 */
import { isIPv4 } from "node:net";
import type { NetworkInterfaceInfo } from "node:os";

/** The sandbox's network interface, made by slirp4netns. */
export const SANDBOX_INTERFACE = "tap0";

/** slirp4netns's default network: the sandbox's address on it, and the gateway (slirp itself). */
const SANDBOX_ADDRESS = "10.0.2.100/24";
const SANDBOX_GATEWAY = "10.0.2.2";

/** The MTU of the sandbox's interface, as slirp4netns is told (its maximum, for throughput). */
export const SANDBOX_MTU = 65520;

/** Link-local IPv4 addresses, where cloud metadata services answer. */
export const LINK_LOCAL_IPV4 = "169.254.0.0/16";

/** Where systemd-resolved lists its upstream nameservers (its stub at 127.0.0.53 is on the host). */
export const SYSTEMD_UPSTREAM_RESOLV_CONF = "/run/systemd/resolve/resolv.conf";

/** The `pref` of the namespace's prohibit rules: after the local table (0), before main (32766). */
const PROHIBIT_RULE_PREFERENCE = 100;

/** At most this many nameservers are read from a resolv.conf (the C library's limit). */
const MAX_NAMESERVERS = 3;

/**
 * The destinations the sandbox's namespace gets no route to, as IPv4 CIDRs: every IPv4 address
 * of the host's interfaces (`os.networkInterfaces()`, loopback ones too) and the link-local range.
 */
export function blockedDestinations(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  const blocked = new Set<string>([LINK_LOCAL_IPV4]);
  for (const addresses of Object.values(interfaces)) {
    for (const address of addresses ?? []) {
      if (address.family === "IPv4" && isIPv4(address.address)) blocked.add(`${address.address}/32`);
    }
  }
  return [...blocked].sort();
}

/**
 * The `ip -batch` lines that configure the namespace once slirp4netns made its interface: the
 * interface up with its address and the default route, and `blocked` (IPv4 CIDRs) unreachable.
 * (slirp4netns's own `--configure` would also touch the loopback interface, which bwrap sets up
 * at the same moment: the two race.)
 */
export function namespaceSetup(blocked: readonly string[]): string[] {
  return [
    `link set ${SANDBOX_INTERFACE} mtu ${SANDBOX_MTU} up`,
    `addr add ${SANDBOX_ADDRESS} dev ${SANDBOX_INTERFACE}`,
    `route add default via ${SANDBOX_GATEWAY} dev ${SANDBOX_INTERFACE}`,
    ...prohibitRules(blocked),
  ];
}

/** The `ip -batch` lines that make `blocked` (IPv4 CIDRs) unreachable from the namespace. */
export function prohibitRules(blocked: readonly string[]): string[] {
  return blocked.map((cidr) => {
    if (parseCidr(cidr) === undefined) throw new TypeError(`not an IPv4 CIDR: ${JSON.stringify(cidr)}`);
    return `rule add to ${cidr} prohibit pref ${PROHIBIT_RULE_PREFERENCE}`;
  });
}

/** A resolv.conf for the sandbox and the nameservers it names (none: names cannot be resolved). */
export interface SandboxResolvConf {
  text: string;
  nameservers: string[];
}

/**
 * The resolv.conf the sandbox gets: the IPv4 nameservers of `hostResolvConf` it can reach (not on
 * a loopback address, not in `blocked`), else those of `upstreamResolvConf` (systemd-resolved's
 * list, when the host's only nameserver is its local stub); `search`, `domain` and `options`
 * lines of `hostResolvConf` are kept.
 */
export function sandboxResolvConf(
  hostResolvConf: string,
  upstreamResolvConf: string | null,
  blocked: readonly string[],
): SandboxResolvConf {
  const reachable = (text: string) =>
    nameserversOf(text)
      .filter((address) => isReachableNameserver(address, blocked))
      .slice(0, MAX_NAMESERVERS);
  let nameservers = reachable(hostResolvConf);
  if (nameservers.length === 0 && upstreamResolvConf !== null) nameservers = reachable(upstreamResolvConf);
  const kept = hostResolvConf
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^(search|domain|options)\s/.test(line));
  const lines =
    nameservers.length === 0
      ? ["# no nameserver of the host is reachable from the sandbox (they are all on the host)"]
      : nameservers.map((address) => `nameserver ${address}`);
  return { text: `${[...lines, ...kept].join("\n")}\n`, nameservers };
}

/** Whether `address` (IPv4) lies inside `cidr` (IPv4 CIDR); false for anything malformed. */
export function ipv4InCidr(address: string, cidr: string): boolean {
  const value = parseIPv4(address);
  const range = parseCidr(cidr);
  if (value === undefined || range === undefined) return false;
  return (value & range.mask) >>> 0 === (range.base & range.mask) >>> 0;
}

function nameserversOf(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const match = /^\s*nameserver\s+(\S+)/.exec(line);
    if (match?.[1] !== undefined) found.push(match[1]);
  }
  return found;
}

function isReachableNameserver(address: string, blocked: readonly string[]): boolean {
  if (!isIPv4(address)) return false;
  // The namespace's own loopback and "this network" are not the host's.
  if (ipv4InCidr(address, "127.0.0.0/8") || ipv4InCidr(address, "0.0.0.0/8")) return false;
  return !blocked.some((cidr) => ipv4InCidr(address, cidr));
}

function parseIPv4(address: string): number | undefined {
  if (!isIPv4(address)) return undefined;
  return address.split(".").reduce((value, part) => value * 256 + Number(part), 0);
}

function parseCidr(cidr: string): { base: number; mask: number } | undefined {
  const match = /^([0-9.]+)\/(\d{1,2})$/.exec(cidr);
  if (match === null) return undefined;
  const base = parseIPv4(match[1] ?? "");
  const bits = Number(match[2]);
  if (base === undefined || bits > 32) return undefined;
  return { base, mask: bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0 };
}
