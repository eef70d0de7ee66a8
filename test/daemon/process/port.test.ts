import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeDiscoveryFile } from "../../../src/daemon/process/discovery-file.js";
import { ensureHome } from "../../../src/daemon/process/home.js";
import { choosePort, isPortFree, pickFreePort, rememberPort } from "../../../src/daemon/process/port.js";
import { homePaths } from "../../../src/home/home.js";
import { removeTempRoots, tempRoot } from "./temp-home.js";

afterEach(removeTempRoots);

const host = "127.0.0.1";

async function occupy(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host, port }, resolve));
  return server;
}

async function homeWithPreviousPort(port: number): Promise<string> {
  const home = join(tempRoot(), "home");
  ensureHome(home);
  await writeDiscoveryFile(home, { pid: 1, port, token: "x".repeat(32), version: 3, instance_id: "old" });
  return home;
}

describe("choosePort", () => {
  it("returns a configured port as is", async () => {
    expect(await choosePort({ configured: 45_000, home: "/nonexistent", host })).toBe(45_000);
  });

  it("reuses the previous daemon's port when it is free", async () => {
    const previous = await pickFreePort(host);
    const home = await homeWithPreviousPort(previous);
    expect(await choosePort({ configured: 0, home, host })).toBe(previous);
  });

  it("picks another free port when the previous one is taken", async () => {
    const server = await occupy(0);
    const address = server.address();
    const taken = typeof address === "object" && address !== null ? address.port : 0;
    try {
      const home = await homeWithPreviousPort(taken);
      expect(await isPortFree(host, taken)).toBe(false);
      const chosen = await choosePort({ configured: 0, home, host });
      expect(chosen).not.toBe(taken);
      expect(await isPortFree(host, chosen)).toBe(true);
    } finally {
      server.close();
    }
  });

  it("comes back to the port it chose before a clean stop (kept in daemon.port, not daemon.json)", async () => {
    const kept = await pickFreePort(host);
    const home = join(tempRoot(), "home");
    ensureHome(home);
    await rememberPort(home, kept);
    expect(await choosePort({ configured: 0, home, host })).toBe(kept);
  });

  it("prefers the kept port to a stale daemon.json's, and ignores a daemon.port that names no port", async () => {
    const kept = await pickFreePort(host);
    const published = await pickFreePort(host);
    const home = await homeWithPreviousPort(published);
    await rememberPort(home, kept);
    expect(await choosePort({ configured: 0, home, host })).toBe(kept);
    for (const garbage of ["70000", "0", "-1", "http", ""]) {
      writeFileSync(homePaths(home).port, garbage);
      expect(await choosePort({ configured: 0, home, host })).toBe(published);
    }
  });

  it("picks a free port when there was no previous daemon", async () => {
    const home = join(tempRoot(), "home");
    const chosen = await choosePort({ configured: 0, home, host });
    expect(chosen).toBeGreaterThan(0);
    const server = await occupy(chosen);
    server.close();
  });
});
