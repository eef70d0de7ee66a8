import type { NetworkInterfaceInfo } from "node:os";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { probeNetworkHelper } from "../../src/tools/network-helper.js";
import {
  blockedDestinations,
  ipv4InCidr,
  LINK_LOCAL_IPV4,
  namespaceSetup,
  prohibitRules,
  sandboxResolvConf,
} from "../../src/tools/sandbox-network.js";

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join("."));
const ipv6 = fc.ipV6();

function interfaceInfo(address: string, family: "IPv4" | "IPv6"): NetworkInterfaceInfo {
  const common = { address, netmask: "", mac: "00:00:00:00:00:00", internal: false, cidr: null };
  return family === "IPv4" ? { ...common, family } : { ...common, family, scopeid: 0 };
}

describe("blockedDestinations", () => {
  it("blocks every IPv4 address of the host, once, and the link-local range, whatever the interfaces", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.array(fc.oneof(ipv4, ipv6))),
        (byName) => {
          const interfaces = Object.fromEntries(
            Object.entries(byName).map(([name, addresses]) => [
              name,
              addresses.map((address) => interfaceInfo(address, address.includes(":") ? "IPv6" : "IPv4")),
            ]),
          );
          const blocked = blockedDestinations(interfaces);
          const v4 = Object.values(byName)
            .flat()
            .filter((address) => !address.includes(":"));
          expect(new Set(blocked)).toEqual(
            new Set([LINK_LOCAL_IPV4, ...v4.map((address) => `${address}/32`)]),
          );
          expect(blocked).toHaveLength(new Set(blocked).size);
          // IPv6 needs no rule: the namespace has no IPv6 route at all.
          expect(blocked.every((cidr) => !cidr.includes(":"))).toBe(true);
        },
      ),
    );
  });

  it("blocks loopback and the host's other addresses as the machine has them", () => {
    expect(
      blockedDestinations({
        lo: [interfaceInfo("127.0.0.1", "IPv4"), interfaceInfo("::1", "IPv6")],
        eth0: [interfaceInfo("192.0.2.2", "IPv4"), interfaceInfo("fd00::2", "IPv6")],
        docker0: [interfaceInfo("172.17.0.1", "IPv4")],
      }),
    ).toEqual(["127.0.0.1/32", "169.254.0.0/16", "172.17.0.1/32", "192.0.2.2/32"]);
  });
});

describe("ipv4InCidr", () => {
  it("puts an address in its own /32, in 0.0.0.0/0, and in its network for any prefix", () => {
    fc.assert(
      fc.property(ipv4, fc.integer({ min: 0, max: 32 }), (address, bits) => {
        expect(ipv4InCidr(address, `${address}/32`)).toBe(true);
        expect(ipv4InCidr(address, "0.0.0.0/0")).toBe(true);
        expect(ipv4InCidr(address, `${address}/${bits}`)).toBe(true);
      }),
    );
  });

  it("keeps addresses outside a range out, and is false for anything malformed", () => {
    expect(ipv4InCidr("169.254.169.254", LINK_LOCAL_IPV4)).toBe(true);
    expect(ipv4InCidr("169.255.0.1", LINK_LOCAL_IPV4)).toBe(false);
    expect(ipv4InCidr("10.0.2.3", "10.0.2.2/32")).toBe(false);
    for (const [address, cidr] of [
      ["::1", "0.0.0.0/0"],
      ["10.0.0.1", "10.0.0.0/33"],
      ["10.0.0.1", "10.0.0.0"],
      ["1.2.3", "1.2.3.0/24"],
    ] as const) {
      expect(ipv4InCidr(address, cidr), `${address} in ${cidr}`).toBe(false);
    }
  });
});

describe("namespaceSetup and prohibitRules", () => {
  it("brings the interface up with its route, then prohibits each blocked range", () => {
    expect(namespaceSetup(["169.254.0.0/16", "192.0.2.2/32"])).toEqual([
      "link set tap0 mtu 65520 up",
      "addr add 10.0.2.100/24 dev tap0",
      "route add default via 10.0.2.2 dev tap0",
      "rule add to 169.254.0.0/16 prohibit pref 100",
      "rule add to 192.0.2.2/32 prohibit pref 100",
    ]);
  });

  it("refuses anything but an IPv4 CIDR, so no text reaches ip's batch as a command", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(text));
        expect(() => prohibitRules([text])).toThrow(TypeError);
      }),
    );
    expect(() => prohibitRules(["10.0.0.0/8\nroute del default"])).toThrow(TypeError);
  });
});

describe("sandboxResolvConf", () => {
  const blocked = ["169.254.0.0/16", "192.0.2.2/32"];

  it("keeps the host's nameservers off the host, and its search and options lines", () => {
    const host = "# generated\nsearch example.internal\nnameserver 10.255.255.53\noptions edns0\n";
    expect(sandboxResolvConf(host, null, blocked)).toEqual({
      text: "nameserver 10.255.255.53\nsearch example.internal\noptions edns0\n",
      nameservers: ["10.255.255.53"],
    });
  });

  it("uses systemd-resolved's upstream servers when the host's nameserver is its local stub", () => {
    const host = "nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch .\n";
    const upstream = "nameserver 192.0.2.2\nnameserver 198.51.100.53\nnameserver 2001:db8::53\n";
    expect(sandboxResolvConf(host, upstream, blocked)).toEqual({
      text: "nameserver 198.51.100.53\noptions edns0 trust-ad\nsearch .\n",
      nameservers: ["198.51.100.53"],
    });
  });

  it("says so when no nameserver is reachable", () => {
    const result = sandboxResolvConf("nameserver 127.0.0.53\n", "nameserver 169.254.169.253\n", blocked);
    expect(result.nameservers).toEqual([]);
    expect(result.text).toMatch(/^# no nameserver/);
  });

  it("never names a loopback, blocked or non-IPv4 nameserver, and at most three, whatever the files say", () => {
    const line = fc.oneof(
      ipv4.map((address) => `nameserver ${address}`),
      ipv6.map((address) => `nameserver ${address}`),
      fc.constantFrom(
        "nameserver 127.0.0.53",
        "nameserver 192.0.2.2",
        "nameserver 169.254.1.1",
        "search a b",
      ),
      fc.string(),
    );
    const file = fc.array(line, { maxLength: 8 }).map((lines) => lines.join("\n"));
    fc.assert(
      fc.property(file, fc.option(file, { nil: null }), (host, upstream) => {
        const { text, nameservers } = sandboxResolvConf(host, upstream, blocked);
        expect(nameservers.length).toBeLessThanOrEqual(3);
        for (const address of nameservers) {
          expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
          expect(ipv4InCidr(address, "127.0.0.0/8")).toBe(false);
          expect(blocked.some((cidr) => ipv4InCidr(address, cidr))).toBe(false);
        }
        const named = text.split("\n").filter((entry) => entry.startsWith("nameserver "));
        expect(named).toEqual(nameservers.map((address) => `nameserver ${address}`));
      }),
    );
  });
});

describe("probeNetworkHelper", () => {
  it("finds the helper's programs on the PATH or in the system directories, or says which are missing", () => {
    const found = probeNetworkHelper("/nonexistent");
    if (found.usable) {
      expect(Object.values(found.helper).every((program) => program.startsWith("/"))).toBe(true);
    } else {
      expect(found.reason).toMatch(/not found; install slirp4netns/);
    }
  });
});
