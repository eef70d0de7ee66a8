import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allowedHosts, allowedOrigins, browserRefusal } from "../../../src/daemon/http/request-guard.js";

const port = 4711;
const origins = allowedOrigins(allowedHosts(port));

function raw(headers: Array<[string, string]>): string[] {
  return headers.flat();
}

describe("browserRefusal", () => {
  it("passes exactly the daemon's own origins, in any letter case", () => {
    expect([...origins].sort()).toEqual([
      "http://127.0.0.1:4711",
      "http://[::1]:4711",
      "http://localhost:4711",
    ]);
    for (const origin of origins) {
      expect(browserRefusal(raw([["Origin", origin.toUpperCase()]]), origins)).toBeNull();
    }
  });

  it("refuses every other Origin value, whatever Sec-Fetch-Site says", () => {
    const site = fc.constantFrom(undefined, "same-origin", "none", "cross-site");
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl(),
          fc.webUrl().map((url) => url.replace(/\/[^/]*$/, "")),
          fc.string(),
        ),
        site,
        (origin, fetchSite) => {
          fc.pre(!origins.has(origin.toLowerCase()));
          const headers: Array<[string, string]> = [["Origin", origin]];
          if (fetchSite !== undefined) headers.push(["Sec-Fetch-Site", fetchSite]);
          expect(browserRefusal(raw(headers), origins)).not.toBeNull();
        },
      ),
    );
  });

  it("refuses a second Origin header even when both are the daemon's", () => {
    const own = "http://127.0.0.1:4711";
    expect(
      browserRefusal(
        raw([
          ["Origin", own],
          ["origin", own],
        ]),
        origins,
      ),
    ).not.toBeNull();
  });

  it("without Origin, passes only no Sec-Fetch-Site, same-origin and none", () => {
    expect(browserRefusal([], origins)).toBeNull();
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom("same-origin", "none", "same-site", "cross-site"), fc.string()),
        (value) => {
          const passes = ["same-origin", "none"].includes(value.toLowerCase());
          expect(browserRefusal(raw([["Sec-Fetch-Site", value]]), origins) === null).toBe(passes);
        },
      ),
    );
  });
});
