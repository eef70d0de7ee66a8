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
