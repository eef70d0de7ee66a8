import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { removeDiscoveryFile, writeDiscoveryFile } from "../../../src/daemon/process/discovery-file.js";
import { readDiscoveryFile } from "../../../src/home/discovery-file.js";
import { discoveryInfo as info, newHome, removeTempRoots } from "./temp-home.js";

afterEach(removeTempRoots);

describe("daemon.json", () => {
  it("is written with mode 0600 and the documented fields", async () => {
    const home = newHome();
    await writeDiscoveryFile(home, info);
    const path = join(home, "daemon.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      pid: 4242,
      port: 45_678,
      token: "t".repeat(64),
      version: 3,
      instance_id: "inst-1",
    });
    expect(readDiscoveryFile(home)).toEqual(info);
  });

  it("leaves no temp file behind", async () => {
    const home = newHome();
    await writeDiscoveryFile(home, info);
    await writeDiscoveryFile(home, { ...info, port: 45_679 });
    expect(readdirSync(home)).toEqual(["daemon.json"]);
  });

  it("is never seen half-written by a concurrent reader", async () => {
    const home = newHome();
    await writeDiscoveryFile(home, info);
    let stop = false;
    let reads = 0;
    const reader = (async () => {
      while (!stop) {
        // Every read must parse and hold one of the complete versions.
        const seen = readDiscoveryFile(home);
        expect(seen?.token.length).toBeGreaterThan(0);
        reads += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let round = 0; round < 100; round += 1) {
      await writeDiscoveryFile(home, { ...info, port: 40_000 + round, token: String(round).repeat(20_000) });
    }
    stop = true;
    await reader;
    expect(reads).toBeGreaterThan(10);
    expect(readDiscoveryFile(home)?.port).toBe(40_099);
  });

  it("cleans up its temp file when it cannot be published", async () => {
    const home = newHome();
    mkdirSync(join(home, "daemon.json"));
    await expect(writeDiscoveryFile(home, info)).rejects.toThrow();
    expect(readdirSync(home)).toEqual(["daemon.json"]);
  });

  it("is removed on shutdown only while it still names this daemon", async () => {
    const home = newHome();
    await writeDiscoveryFile(home, info);
    expect(await removeDiscoveryFile(home, { pid: 4242, instance_id: "other" })).toBe(false);
    expect(await removeDiscoveryFile(home, { pid: 1, instance_id: "inst-1" })).toBe(false);
    expect(readDiscoveryFile(home)).toEqual(info);
    expect(await removeDiscoveryFile(home, { pid: 4242, instance_id: "inst-1" })).toBe(true);
    expect(readDiscoveryFile(home)).toBeNull();
    expect(await removeDiscoveryFile(home, { pid: 4242, instance_id: "inst-1" })).toBe(false);
  });
});
