/**
 * `skein doctor`: one line per check, a fix for each failure, exit 1 when any check fails.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { httpError, text } from "../support/fake-provider/reply.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { CliSandbox, fakeProfile } from "./support/cli-harness.js";

describe("skein doctor", () => {
  const fake = withFakeProvider();
  const sandboxes: CliSandbox[] = [];

  afterEach(async () => {
    for (const sandbox of sandboxes.splice(0)) await sandbox.cleanup();
  });

  function sandbox(env: Record<string, string> = {}): CliSandbox {
    const created = new CliSandbox({ env });
    sandboxes.push(created);
    return created;
  }

  it("passes every check on a working setup (exit 0)", async () => {
    fake().script = () => text("OK");
    const cli = sandbox();
    cli.writeProviders({ fake: fakeProfile(fake().baseUrl) });
    const result = await cli.run(["doctor"], { timeoutMs: 40_000 });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(/^✓ node: Node\.js \d+\.\d+\.\d+$/);
    expect(lines[1]).toBe("✓ config: 1 profile (fake); active: fake");
    expect(lines[2]).toMatch(/^✓ daemon: reachable \(version .*\)$/);
    expect(lines[3]).toMatch(
      /^✓ profile fake: fake-model at http:\/\/127\.0\.0\.1:\d+\/v1 answered in \d+ ms; key from "apiKey" of profile "fake" in config\.json$/,
    );
    expect(lines[4]).toMatch(/^✓ sandbox: run_command is sandboxed by \/usr\/bin\/bwrap/);
    expect(lines[5]).toMatch(/^✓ disk: \d+\.\d GiB free for /);
    expect(lines[6]).toBe("all good");
  }, 50_000);

  it("fails a refusing profile, a missing key and a missing sandbox, each with its fix (exit 1)", async () => {
    fake().script = () => httpError(401, { message: "invalid api key" });
    const cli = sandbox({ SKEIN_BWRAP_PATH: "/nonexistent/skein-test/bwrap" });
    cli.writeProviders({
      refused: fakeProfile(fake().baseUrl),
      keyless: {
        protocol: "chat_completions",
        baseUrl: `${fake().baseUrl}/v1`,
        model: "m",
        apiKeyEnv: "SKEIN_TEST_UNSET_KEY",
      },
    });
    const result = await cli.run(["doctor"], { timeoutMs: 40_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /✗ profile refused: fake-model at .*: http \(HTTP 401\): .*invalid api key\n {4}fix: check the model name and the key/,
    );
    expect(result.stdout).toMatch(
      /✗ profile keyless: .*SKEIN_TEST_UNSET_KEY.*\n {4}fix: `skein auth set keyless` \(the running daemon uses it from the next request\)/,
    );
    expect(result.stdout).toMatch(
      /✗ sandbox: run_command is not offered: .*\n {4}fix: install bubblewrap \(Debian\/Ubuntu: sudo apt install bubblewrap/,
    );
    expect(result.stdout).toMatch(/3 checks failed\n$/);
  }, 50_000);

  it("reports an invalid config.json and an unreachable daemon without stopping early", async () => {
    const cli = sandbox({ SKEIN_NO_AUTOSTART: "1" });
    cli.writeProviders({});
    writeFileSync(join(cli.home, "config.json"), "{ not json");
    const result = await cli.run(["doctor", "--json"], { timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      ok: boolean;
      checks: Array<{ name: string; status: string; fix?: string }>;
    };
    expect(report.ok).toBe(false);
    const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]));
    expect(byName.node?.status).toBe("ok");
    expect(byName.config).toMatchObject({ status: "fail", fix: expect.stringContaining("fix or remove") });
    expect(byName.daemon).toMatchObject({
      status: "fail",
      fix: expect.stringContaining("skein daemon start"),
    });
    expect(byName.disk?.status).toBe("ok");
  }, 40_000);
});
