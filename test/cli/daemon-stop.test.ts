/**
 * `skein daemon stop` with turns running: it says which were running, which finished within
 * the timeout and which the timeout cut.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deliver, deltas } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { CliSandbox, eventually, fakeProfile, type LiveCli } from "./support/cli-harness.js";

describe("skein daemon stop with running turns", () => {
  let provider: FakeProvider;
  const sandboxes: CliSandbox[] = [];
  const runs: LiveCli[] = [];

  beforeAll(async () => {
    provider = await FakeProvider.start();
  });

  afterEach(async () => {
    for (const live of runs.splice(0)) live.child.kill("SIGKILL");
    for (const sandbox of sandboxes.splice(0)) await sandbox.cleanup();
  });

  afterAll(async () => {
    await provider.close();
  });

  async function runningTurn(
    delayMs: number,
    count: number,
  ): Promise<{ cli: CliSandbox; sessionId: string }> {
    const cli = new CliSandbox();
    sandboxes.push(cli);
    cli.writeProviders({ fake: fakeProfile(provider.baseUrl) });
    expect((await cli.run(["daemon", "start"])).code).toBe(0);
    provider.script = () => deliver(deltas(count, "tick "), { delayMs });
    const live = cli.spawn(["run", "tick for a while"]);
    runs.push(live);
    await eventually(
      () => live.stdout().includes("tick tick"),
      () => `no output yet: ${live.stdout()} ${live.stderr()}`,
    );
    const sessionId = /session ([0-9a-f-]{36})/.exec(live.stderr())![1]!;
    return { cli, sessionId };
  }

  it("names a turn the timeout cut", async () => {
    const { cli, sessionId } = await runningTurn(50, 400);
    const stopped = await cli.run(["daemon", "stop", "--timeout", "1"], { timeoutMs: 30_000 });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain("1 running turn; waiting up to 1 s for it to finish:");
    expect(stopped.stdout).toContain(`cut at the 1 s limit: ${sessionId}  tick for a while`);
    expect(stopped.stdout).toMatch(/stopped the Skein daemon \(pid \d+\)\n$/);
  }, 40_000);

  it("names a turn that finished within the timeout", async () => {
    const { cli, sessionId } = await runningTurn(50, 30);
    const stopped = await cli.run(["daemon", "stop", "--timeout", "20"], { timeoutMs: 40_000 });
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toContain(`finished: ${sessionId}  tick for a while`);
    expect(stopped.stdout).not.toContain("cut at");
  }, 50_000);
});

describe("a daemon that crashes under a running command", () => {
  let provider: FakeProvider;
  let cli: CliSandbox;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    cli = new CliSandbox();
    cli.writeProviders({ fake: fakeProfile(provider.baseUrl) });
  });

  afterAll(async () => {
    await cli.cleanup();
    await provider.close();
  });

  it("is started again by `skein run`, which reports the lost turn at once", async () => {
    expect((await cli.run(["daemon", "start"])).code).toBe(0);
    const crashed = cli.daemonInfo()!.pid;
    provider.script = () => deliver(deltas(200, "tick "), { delayMs: 30 });
    const live = cli.spawn(["run", "survive a crash"]);
    await eventually(
      () => live.stdout().includes("tick tick"),
      () => `no output yet: ${live.stdout()} ${live.stderr()}`,
    );
    process.kill(crashed, "SIGKILL");
    const killedAt = Date.now();
    const timer = setTimeout(() => live.child.kill("SIGKILL"), 30_000);
    const result = await live.exited;
    clearTimeout(timer);
    // Without a restart the command waited 60 s for a daemon and gave up with exit 3.
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    expect(result.stderr).toContain("reconnected: the daemon or session restarted");
    // The new daemon either continues the turn (a recovery turn) or, when nothing of it was saved
    // yet, gives it up: the command follows the one or reports the other.
    if (result.code === 0) expect(result.stdout).toMatch(/(tick ){200}\n$/);
    else {
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain("the daemon restarted during the turn");
    }
    const restarted = cli.daemonInfo()!.pid;
    expect(restarted).not.toBe(crashed);
    expect(cli.daemonPids()).toEqual([restarted]);
  }, 45_000);

  it("leaves a daemon stopped on purpose stopped", async () => {
    provider.script = () => deliver(deltas(200, "tock "), { delayMs: 30 });
    const live = cli.spawn(["run", "--ephemeral", "be stopped"]);
    await eventually(
      () => live.stdout().includes("tock tock"),
      () => `no output yet: ${live.stdout()} ${live.stderr()}`,
    );
    expect((await cli.run(["daemon", "stop", "--timeout", "0"], { timeoutMs: 30_000 })).code).toBe(0);
    const timer = setTimeout(() => live.child.kill("SIGKILL"), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(cli.daemonPids()).toEqual([]);
    // Ctrl-C twice: the command leaves; it does not start a daemon on its way out either.
    live.child.kill("SIGINT");
    await new Promise((resolve) => setTimeout(resolve, 300));
    live.child.kill("SIGINT");
    const result = await live.exited;
    clearTimeout(timer);
    expect(result.code).toBe(130);
    expect(cli.daemonPids()).toEqual([]);
  }, 45_000);
});
