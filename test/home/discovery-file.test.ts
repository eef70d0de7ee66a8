/**
 * Reading daemon.json, the one reader the daemon and its clients share.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DiscoveryFileError, readDiscoveryFile } from "../../src/home/discovery-file.js";
import { discoveryInfo as info, newHome, removeTempRoots } from "../daemon/process/temp-home.js";

afterEach(removeTempRoots);

describe("readDiscoveryFile", () => {
  it("reads as null when absent and throws a typed error when malformed", () => {
    const home = newHome();
    expect(readDiscoveryFile(home)).toBeNull();
    writeFileSync(join(home, "daemon.json"), "{not json");
    expect(() => readDiscoveryFile(home)).toThrow(DiscoveryFileError);
    writeFileSync(join(home, "daemon.json"), JSON.stringify({ ...info, version: 2 }));
    expect(() => readDiscoveryFile(home)).toThrow(/protocol version 2 is not 3/);
  });

  it("names the field that is wrong", () => {
    const home = newHome();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...info, pid: 0 }, /bad pid/],
      [{ ...info, port: 70_000 }, /bad port/],
      [{ ...info, token: "" }, /bad token/],
      [{ ...info, instance_id: 7 }, /bad instance_id/],
    ];
    for (const [value, message] of cases) {
      writeFileSync(join(home, "daemon.json"), JSON.stringify(value));
      expect(() => readDiscoveryFile(home)).toThrow(message);
    }
    writeFileSync(join(home, "daemon.json"), JSON.stringify(info));
    expect(readDiscoveryFile(home)).toEqual(info);
  });
});
