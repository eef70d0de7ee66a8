import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readListen } from "../../../src/daemon/process/listen-settings.js";
import { SettingsError } from "../../../src/daemon/process/settings-error.js";

describe("readListen (SKEIN_LISTEN)", () => {
  it("reads IPv4 and bracketed IPv6 addresses with a port", () => {
    expect(readListen("0.0.0.0:7700")).toEqual({ host: "0.0.0.0", port: 7700 });
    expect(readListen("[::1]:0")).toEqual({ host: "::1", port: 0 });
    expect(readListen(undefined)).toBeNull();
  });

  it("refuses host names, missing ports, ports over 65535 and unbracketed IPv6, naming the variable", () => {
    for (const raw of [
      "localhost:7700",
      "0.0.0.0",
      "0.0.0.0:65536",
      "::1:7700",
      "1.2.3.4:-1",
      " 1.2.3.4:1",
    ]) {
      expect(() => readListen(raw), raw).toThrow(SettingsError);
      expect(() => readListen(raw)).toThrow(/SKEIN_LISTEN=.* is invalid: expected ADDRESS:PORT/);
    }
  });

  it("either reads an IP address and a port in range or refuses with a SettingsError, for any text", () => {
    fc.assert(
      fc.property(fc.string(), (raw) => {
        try {
          const listen = readListen(raw);
          expect(listen).not.toBeNull();
          expect(listen!.port).toBeGreaterThanOrEqual(0);
          expect(listen!.port).toBeLessThanOrEqual(65_535);
        } catch (error) {
          expect(error).toBeInstanceOf(SettingsError);
        }
      }),
    );
  });
});
