import { describe, expect, it } from "vitest";
import { AddressAllowList, addressProblem, embeddedIPv4 } from "../../src/tools/fetch-address.js";

const none = new AddressAllowList([]);
const host = new Set(["203.0.113.9"]);

describe("the addresses web_fetch may reach", () => {
  it.each([
    ["127.0.0.1", "a loopback address"],
    ["127.8.9.10", "a loopback address"],
    ["::1", "a loopback address"],
    ["10.1.2.3", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["192.168.1.1", "a private address"],
    ["169.254.169.254", "a link-local address"],
    ["fe80::1", "a link-local address"],
    ["fd12:3456::1", "a private (unique local) address"],
    ["100.64.0.1", "a shared (CGNAT) address"],
    ["0.0.0.0", "an unspecified address"],
    ["::", "an unspecified address"],
    ["224.0.0.1", "a multicast address"],
    ["ff02::1", "a multicast address"],
    ["::ffff:127.0.0.1", "a loopback address"],
    ["::ffff:7f00:1", "a loopback address"],
    ["::ffff:10.0.0.1", "a private address"],
    ["2002:7f00:1::", "a loopback address"],
    ["64:ff9b::a9fe:a9fe", "a link-local address"],
    ["203.0.113.9", "an address of this machine"],
  ])("refuses %s (%s)", (address, why) => {
    expect(addressProblem(address, host, none)).toBe(why);
  });

  it.each(["93.184.215.14", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])(
    "allows %s",
    (address) => {
      expect(addressProblem(address, host, none)).toBeNull();
    },
  );

  it("allows exactly the ranges the operator lists", () => {
    const allowed = new AddressAllowList(["127.0.0.1/32", "fd00::/8"]);
    expect(addressProblem("127.0.0.1", host, allowed)).toBeNull();
    expect(addressProblem("fd00::5", host, allowed)).toBeNull();
    expect(addressProblem("127.0.0.2", host, allowed)).toBe("a loopback address");
    expect(addressProblem("::1", host, allowed)).toBe("a loopback address");
    expect(() => new AddressAllowList(["localhost"])).toThrow(/not an address range/);
    expect(() => new AddressAllowList(["10.0.0.0/33"])).toThrow(/not an address range/);
  });

  it("reads the IPv4 address an IPv6 address carries", () => {
    expect(embeddedIPv4("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(embeddedIPv4("2002:c000:201::1")).toBe("192.0.2.1");
    expect(embeddedIPv4("2001:db8::1")).toBeNull();
  });
});
