/** config.json's `retention` section: what it accepts, each refusal named, and a rewrite keeping it as written. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseProviderConfig, writeProviderConfig } from "../../src/home/provider-config.js";
import { removeTempRoots, tempRoot } from "../daemon/process/temp-home.js";

afterEach(removeTempRoots);

const parse = (retention: unknown) =>
  parseProviderConfig(JSON.stringify({ providers: {}, retention }), "/h/config.json").retention;

describe("the retention section of config.json", () => {
  it("takes either rule or both, leaving unset keys out for the daemon's defaults", () => {
    expect(parse({ deleteIdleDays: 30 })).toEqual({ deleteIdleDays: 30 });
    expect(parse({ keepEntries: 500, aboveBytes: 1_000_000, intervalMinutes: 0.5 })).toEqual({
      keepEntries: 500,
      aboveBytes: 1_000_000,
      intervalMinutes: 0.5,
    });
    expect(parse({ deleteIdleDays: 0.5, keepEntries: 1 })).toEqual({ deleteIdleDays: 0.5, keepEntries: 1 });
  });

  it("refuses what it cannot apply, naming the key", () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /"retention" must be an object/],
      [{}, /must set "deleteIdleDays", "keepEntries" or both/],
      [{ aboveBytes: 5 }, /must set "deleteIdleDays", "keepEntries" or both/],
      [{ deleteIdleDays: 0 }, /"retention.deleteIdleDays" must be a number above 0/],
      [{ deleteIdleDays: "30" }, /"retention.deleteIdleDays" must be a number above 0/],
      [{ keepEntries: 1.5 }, /"retention.keepEntries" must be a whole number above 0/],
      [{ keepEntries: 10, aboveBytes: -1 }, /"retention.aboveBytes" must be a whole number of bytes/],
      [{ keepEntries: 10, intervalMinutes: 0 }, /"retention.intervalMinutes" must be a number above 0/],
      [{ keepEntries: 10, keep: 1 }, /"retention" has unknown key "keep"/],
    ];
    for (const [retention, message] of cases)
      expect(() => parse(retention), String(message)).toThrow(message);
  });

  it("survives a rewrite of config.json as it was written", async () => {
    const home = tempRoot();
    await writeProviderConfig(home, { providers: {}, retention: { keepEntries: 100 } });
    const written = JSON.parse(readFileSync(join(home, "config.json"), "utf8")) as { retention: unknown };
    expect(written.retention).toEqual({ keepEntries: 100 });
  });
});
