/**
 * `skein daemon stop` while a client follows a session's stream (and reconnects when it is
 * cut, starting a daemon if none answers) and an MCP server that stops only when killed runs:
 * the listener closes before the MCP servers stop, the command returns within seconds, and
 * `daemon start` works right after.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { testServerConfig } from "../support/mcp/servers.js";
import { CliSandbox, eventually, fakeProfile, type LiveCli } from "./support/cli-harness.js";

describe("skein daemon stop with an attached client and an MCP server", () => {
  let provider: FakeProvider;
  let cli: CliSandbox;
  let attached: LiveCli | null = null;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    provider.script = () => text("Hello.");
    cli = new CliSandbox({ env: { SKEIN_NO_AUTOSTART: "1" } });
    cli.writeProviders({ fake: fakeProfile(provider.baseUrl) });
  });

  afterAll(async () => {
    attached?.child.kill("SIGKILL");
    await cli.cleanup();
    await provider.close();
  });

  it("stops within seconds and a new daemon starts at once", async () => {
    const configPath = join(cli.home, "config.json");
    const config = JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>;
    writeFileSync(
      configPath,
      JSON.stringify({ ...config, mcpServers: { test: testServerConfig(["--slow-exit"]) } }),
    );
    expect((await cli.run(["daemon", "start"], { timeoutMs: 30_000 })).code).toBe(0);
    // A turn starts the session's MCP server.
    const run = await cli.run(["run", "hi"], { timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const sessionId = /session ([0-9a-f-]{36})/.exec(run.stderr)![1]!;
    const mcp = await cli.run(["mcp", "list"], { timeoutMs: 30_000 });
    expect(mcp.stdout, mcp.stderr).toContain("ready");
    attached = cli.spawn(["attach", sessionId], { env: { SKEIN_NO_AUTOSTART: "" } });
    await eventually(
      () => attached!.stdout().includes("Hello."),
      () => `not attached: ${attached!.stdout()} ${attached!.stderr()}`,
    );

    const started = Date.now();
    const stopped = await cli.run(["daemon", "stop"], { timeoutMs: 60_000 });
    const stopMs = Date.now() - started;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopMs).toBeLessThan(4_000);

    const again = await cli.run(["daemon", "start"], { timeoutMs: 30_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("started the Skein daemon");
  }, 120_000);
});
