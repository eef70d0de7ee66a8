/**
 * `skein/client` as another program gets it: through the package's `exports` map, from the
 * built dist/, in a separate Node process. Once with the package installed as a dependency
 * (a temporary project whose node_modules/skein links to this one) and once by the package's
 * self-reference from inside it. The consumer talks to a real daemon with what it imported.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";

const run = promisify(execFile);
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

// Imports skein/client, lists what it exports, and asks the daemon of SKEIN_HOME for /server.
const consumer = `
import * as client from "skein/client";
const daemon = client.DaemonClient.forHome(process.env.SKEIN_HOME);
const server = await daemon.server();
daemon.close();
console.log(JSON.stringify({
  exports: Object.keys(client).sort(),
  protocol: server.protocol,
  state: server.state,
  id: client.uuidV7().length,
}));
`;

describe("the skein/client export", () => {
  let daemon: DaemonHarness;
  let consumerRoot: string;

  beforeAll(async () => {
    daemon = await DaemonHarness.start();
    consumerRoot = mkdtempSync(join(tmpdir(), "skein-consumer-"));
    mkdirSync(join(consumerRoot, "node_modules"));
    symlinkSync(projectRoot, join(consumerRoot, "node_modules", "skein"), "dir");
    writeFileSync(join(consumerRoot, "package.json"), JSON.stringify({ name: "consumer", type: "module" }));
    writeFileSync(join(consumerRoot, "consumer.mjs"), consumer);
  });

  afterAll(async () => {
    await daemon.close();
    rmSync(consumerRoot, { recursive: true, force: true });
  });

  async function runConsumer(cwd: string, script: string): Promise<Record<string, unknown>> {
    const { stdout } = await run(process.execPath, [script], {
      cwd,
      env: { PATH: process.env.PATH ?? "", SKEIN_HOME: daemon.home },
      timeout: 20_000,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it("resolves for a project that depends on skein and talks to the daemon", async () => {
    const seen = await runConsumer(consumerRoot, join(consumerRoot, "consumer.mjs"));
    expect(seen.protocol).toBe(3);
    expect(seen.state).toBe("ready");
    expect(seen.id).toBe(36);
    expect(seen.exports).toEqual(
      expect.arrayContaining([
        "DaemonApiError",
        "DaemonClient",
        "DaemonUnreachableError",
        "ensureDaemon",
        "skeinHome",
        "uuidV7",
      ]),
    );
  });

  it("resolves by the package's self-reference from inside it", async () => {
    const inside = join(projectRoot, "dist", `.self-reference-${process.pid}.mjs`);
    writeFileSync(inside, consumer);
    try {
      const seen = await runConsumer(projectRoot, inside);
      expect(seen.protocol).toBe(3);
    } finally {
      rmSync(inside, { force: true });
    }
  });

  it("declares its types where the exports map says", () => {
    const manifest = JSON.parse(readFileSync(join(projectRoot, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; default: string }>;
    };
    const entry = manifest.exports["./client"]!;
    const declarations = readFileSync(join(projectRoot, entry.types), "utf8");
    expect(declarations).toContain("DaemonClient");
    expect(declarations).toContain("session-snapshot.js");
  });
});
