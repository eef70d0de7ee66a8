/**
 * Auto-start and `skein daemon …`: commands start a daemon in the background when none runs,
 * concurrent starters end up with one daemon, and the daemon subcommands manage it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { processExists } from "../support/process-exists.js";
import { CliSandbox, eventually, fakeProfile, occurrences } from "./support/cli-harness.js";

describe("daemon auto-start", () => {
  let provider: FakeProvider;
  const sandboxes: CliSandbox[] = [];

  beforeAll(async () => {
    provider = await FakeProvider.start();
    provider.script = () => text("Started and answered.");
  });

  afterEach(async () => {
    for (const sandbox of sandboxes.splice(0)) await sandbox.cleanup();
  });

  afterAll(async () => {
    await provider.close();
  });

  function sandbox(): CliSandbox {
    const created = new CliSandbox();
    sandboxes.push(created);
    created.writeProviders({ fake: fakeProfile(provider.baseUrl) });
    return created;
  }

  it("two concurrent `skein run` on a fresh home start exactly one daemon", async () => {
    const cli = sandbox();
    const [a, b] = await Promise.all([cli.run(["run", "first"]), cli.run(["run", "second"])]);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout).toBe("Started and answered.\n");
    expect(b.stdout).toBe("Started and answered.\n");
    const info = cli.daemonInfo();
    expect(info).not.toBeNull();
    expect(processExists(info!.pid)).toBe(true);
    // A starter that lost the race may still be on its way out (it fails on the home lock).
    await eventually(
      () => cli.daemonPids().length === 1,
      () => `daemon processes: ${cli.daemonPids().join(", ")}`,
    );
    expect(cli.daemonPids()).toEqual([info!.pid]);
    const log = readFileSync(join(cli.home, "daemon.log"), "utf8");
    expect(occurrences(log, '"msg":"ready"')).toBe(1);
    // Both prompts went to the one daemon.
    const sessions = JSON.parse((await cli.run(["sessions", "--json"])).stdout) as Array<{
      preview: { text: string };
    }>;
    expect(sessions.map((session) => session.preview.text).sort()).toEqual(["first", "second"]);
  });

  it("starts, reports, logs and stops the daemon with `skein daemon …`", async () => {
    const cli = sandbox();
    const before = await cli.run(["daemon", "status"]);
    expect(before.code).toBe(3);
    expect(before.stdout).toContain("not running");

    const started = await cli.run(["daemon", "start"]);
    expect(started.code).toBe(0);
    expect(started.stdout).toContain("started the Skein daemon");
    const info = cli.daemonInfo()!;
    const again = await cli.run(["daemon", "start"]);
    expect(again.stdout).toContain(`already running (pid ${info.pid}`);

    const status = await cli.run(["daemon", "status", "--json"]);
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      running: true,
      pid: info.pid,
      port: info.port,
      state: "ready",
    });

    const logs = await cli.run(["daemon", "logs", "-n", "5"]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}ready port=\d+/m);
    const raw = await cli.run(["daemon", "logs", "-n", "5", "--json"]);
    expect(raw.stdout).toContain('"msg":"ready"');

    const stopped = await cli.run(["daemon", "stop"]);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`stopped the Skein daemon (pid ${info.pid})`);
    expect(processExists(info.pid)).toBe(false);
    expect(cli.daemonInfo()).toBeNull();
    const after = await cli.run(["daemon", "stop"]);
    expect(after.code).toBe(0);
    expect(after.stdout).toContain("no Skein daemon is running");
  });

  it("replaces a daemon that died without cleaning up (stale daemon.json)", async () => {
    const cli = sandbox();
    expect((await cli.run(["daemon", "start"])).code).toBe(0);
    const first = cli.daemonInfo()!;
    process.kill(first.pid, "SIGKILL");
    await eventually(
      () => !processExists(first.pid),
      () => "the killed daemon is still there",
    );
    const result = await cli.run(["run", "after a crash"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("started the Skein daemon");
    const second = cli.daemonInfo()!;
    expect(second.pid).not.toBe(first.pid);
    expect(cli.daemonPids()).toEqual([second.pid]);
  });
});
