import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkNodeUrl,
  defaultNodeUrl,
  isLoopbackHostName,
  listenHostNames,
  nodeAddressWarnings,
  readNodeUrl,
  readPublicUrls,
} from "../../../src/daemon/process/node-address.js";
import { readSettings, SettingsError } from "../../../src/daemon/process/settings.js";

describe("node and public URLs", () => {
  it("takes http and https URLs with a host and port, as origins", () => {
    expect(readNodeUrl("http://10.0.0.5:7700/")).toBe("http://10.0.0.5:7700");
    expect(readNodeUrl("https://node-a.internal")).toBe("https://node-a.internal");
    expect(readNodeUrl(undefined)).toBeNull();
    expect(readPublicUrls(" https://skein.example.com , http://[fd00::5]:7700,")).toEqual([
      "https://skein.example.com",
      "http://[fd00::5]:7700",
    ]);
  });

  it("refuses anything else with a SettingsError naming the variable, for every malformed value", () => {
    const bad = fc.oneof(
      fc.constantFrom(
        "10.0.0.5:7700",
        "ftp://10.0.0.5",
        "http://10.0.0.5:7700/path",
        "http://user@10.0.0.5",
        "http://10.0.0.5/?a=1",
        "http://10.0.0.5/#x",
        "http://",
      ),
      fc.string().filter((text) => !/^https?:\/\//i.test(text.trim()) && text.trim() !== ""),
    );
    fc.assert(
      fc.property(bad, (raw) => {
        for (const [variable, read] of [
          ["SKEIN_NODE_URL", () => readNodeUrl(raw)],
          ["SKEIN_PUBLIC_URLS", () => readPublicUrls(raw.replaceAll(",", ""))],
        ] as const) {
          try {
            read();
          } catch (error) {
            expect(error).toBeInstanceOf(SettingsError);
            expect((error as SettingsError).variable).toBe(variable);
            continue;
          }
          // Only an empty list (a value of commas and blanks) may pass.
          expect(variable === "SKEIN_PUBLIC_URLS" && raw.replaceAll(",", "").trim() === "").toBe(true);
        }
      }),
    );
  });

  it("defaults the node URL to the listen address, and to loopback for a wildcard one", () => {
    expect(defaultNodeUrl("127.0.0.1", 7700)).toBe("http://127.0.0.1:7700");
    expect(defaultNodeUrl("10.0.0.5", 7700)).toBe("http://10.0.0.5:7700");
    expect(defaultNodeUrl("fd00::5", 7700)).toBe("http://[fd00::5]:7700");
    expect(defaultNodeUrl("0.0.0.0", 7700)).toBe("http://127.0.0.1:7700");
  });

  it("refuses a loopback node URL on a daemon that listens on one network address only", () => {
    expect(() => checkNodeUrl("http://127.0.0.1:7700", "10.0.0.5", false)).toThrow(
      /other nodes could not reach/,
    );
    expect(() => checkNodeUrl("http://localhost:7700", "10.0.0.5", false)).toThrow(SettingsError);
    expect(() =>
      readSettings({
        SKEIN_HOST: "10.0.0.5",
        SKEIN_ALLOW_NON_LOOPBACK: "1",
        SKEIN_NODE_URL: "http://[::1]:7700",
      }),
    ).toThrow(/SKEIN_NODE_URL/);
    // Reachable setups pass: a network URL, a wildcard listener, a loopback listener.
    checkNodeUrl("http://10.0.0.5:7700", "10.0.0.5", false);
    checkNodeUrl("http://127.0.0.1:7700", "0.0.0.0", false);
    checkNodeUrl("http://127.0.0.1:7700", "127.0.0.1", true);
  });

  it("warns of a loopback URL on a wildcard listener and of plain http between machines", () => {
    expect(nodeAddressWarnings("http://127.0.0.1:7700", "0.0.0.0", false)).toEqual([
      expect.stringMatching(/loopback address, while it listens on every interface/),
    ]);
    expect(nodeAddressWarnings("http://10.0.0.5:7700", "10.0.0.5", true)).toEqual([
      expect.stringMatching(/plain http .* clear text/),
    ]);
    expect(nodeAddressWarnings("https://node-a.internal", "0.0.0.0", true)).toEqual([]);
    expect(nodeAddressWarnings("http://127.0.0.1:7700", "127.0.0.1", false)).toEqual([]);
  });

  it("names the listen address for the Host check, and each interface's for a wildcard", () => {
    expect(listenHostNames("127.0.0.2", {})).toEqual(["127.0.0.2"]);
    expect(listenHostNames("fd00::5", {})).toEqual(["[fd00::5]"]);
    const interfaces = {
      lo: [
        { address: "127.0.0.1", family: "IPv4" },
        { address: "::1", family: "IPv6" },
      ],
      eth0: [
        { address: "10.0.0.5", family: "IPv4" },
        { address: "fe80::1", family: "IPv6" },
        { address: "fd00::5", family: "IPv6" },
      ],
    };
    expect(listenHostNames("0.0.0.0", interfaces)).toEqual(["10.0.0.5", "[fd00::5]"]);
  });

  it("knows loopback names", () => {
    for (const name of ["localhost", "a.localhost", "127.0.0.2", "[::1]", "::ffff:127.0.0.1"])
      expect(isLoopbackHostName(name), name).toBe(true);
    for (const name of ["10.0.0.5", "localhost.example.com", "[fd00::1]", "128.0.0.1"])
      expect(isLoopbackHostName(name), name).toBe(false);
  });
});
