import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clientAddress, mayConnectInPlainText } from "../../../src/daemon/http/client-address.js";

const proxies = new Set(["10.0.0.2"]);

describe("clientAddress", () => {
  it("is the peer's address unless the peer is a trusted proxy, whose last X-Forwarded-For hop it then is", () => {
    const forwarded = ["X-Forwarded-For", "198.51.100.1, 203.0.113.7"];
    expect(clientAddress("::ffff:10.0.0.2", forwarded, proxies)).toBe("203.0.113.7");
    expect(clientAddress("10.0.0.3", forwarded, proxies)).toBe("10.0.0.3");
    expect(clientAddress("10.0.0.2", [], proxies)).toBe("10.0.0.2");
    expect(clientAddress(undefined, forwarded, proxies)).toBeNull();
  });

  it("never takes a forwarded address from a peer that is not a trusted proxy, whatever the header says", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.string(), (peer, header) => {
        fc.pre(peer !== "10.0.0.2");
        expect(clientAddress(peer, ["x-forwarded-for", header], proxies)).toBe(peer);
      }),
    );
  });

  it("lets only trusted proxies and loopback connect in plain text", () => {
    expect(mayConnectInPlainText("::ffff:10.0.0.2", proxies)).toBe(true);
    expect(mayConnectInPlainText("127.0.0.1", proxies)).toBe(true);
    expect(mayConnectInPlainText("::1", proxies)).toBe(true);
    expect(mayConnectInPlainText("10.0.0.3", proxies)).toBe(false);
  });
});
