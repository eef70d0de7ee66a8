/**
 * `skein config …`: provider profiles in config.json, keys kept out of sight, and `config test`
 * against a real (fake) provider server, sent by the daemon with the daemon's environment.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpError, text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { CliSandbox } from "./support/cli-harness.js";

describe("skein config", () => {
  let provider: FakeProvider;
  let cli: CliSandbox;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    cli = new CliSandbox({ env: { SKEIN_NO_AUTOSTART: "1" } });
  });

  afterAll(async () => {
    await cli.cleanup();
    await provider.close();
  });

  /** `skein config add NAME` for a Chat Completions profile of the fake provider, with these key options. */
  function addFakeProfile(name: string, key: readonly string[]) {
    const where = ["--base-url", `${provider.baseUrl}/v1`, "--model", "fake-model"];
    return cli.run(["config", "add", name, "--protocol", "chat_completions", ...where, ...key]);
  }

  function config(): { active?: string; providers: Record<string, Record<string, unknown>> } {
    return JSON.parse(readFileSync(join(cli.home, "config.json"), "utf8"));
  }

  it("adds profiles (the first becomes active), stores keys with mode 0600 and never prints them", async () => {
    const added = await addFakeProfile("local", ["--api-key", "sk-very-secret"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('added provider profile "local"');
    expect(added.stdout).toContain('"local" is the active profile');
    const second = await cli.run([
      "config",
      "add",
      "claude",
      "--protocol",
      "anthropic",
      "--model",
      "claude-x",
      "--api-key-env",
      "MY_ANTHROPIC_KEY",
    ]);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("MY_ANTHROPIC_KEY is not set here");
    expect(config()).toEqual({
      active: "local",
      providers: {
        local: {
          protocol: "chat_completions",
          baseUrl: `${provider.baseUrl}/v1`,
          model: "fake-model",
          apiKey: "sk-very-secret",
        },
        claude: {
          protocol: "anthropic",
          baseUrl: "https://api.anthropic.com",
          model: "claude-x",
          apiKeyEnv: "MY_ANTHROPIC_KEY",
        },
      },
    });
    expect(statSync(join(cli.home, "config.json")).mode & 0o777).toBe(0o600);

    const list = await cli.run(["config", "list"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/\* local\s+chat_completions\s+fake-model/);
    expect(list.stdout).toContain("key from $MY_ANTHROPIC_KEY");
    expect(list.stdout).toContain("key stored");
    const json = await cli.run(["config", "list", "--json"]);
    for (const output of [list.stdout, json.stdout]) expect(output).not.toContain("sk-very-secret");
  });

  it("reads a stored key from stdin with --api-key -", async () => {
    const result = await cli.run(
      ["config", "add", "piped", "--protocol", "gemini", "--model", "gemini-x", "--api-key", "-"],
      { input: "key-from-stdin\n" },
    );
    expect(result.code).toBe(0);
    expect(config().providers.piped?.apiKey).toBe("key-from-stdin");
  });

  it("selects and removes profiles", async () => {
    expect((await cli.run(["config", "use", "claude"])).code).toBe(0);
    expect(config().active).toBe("claude");
    const unknown = await cli.run(["config", "use", "nope"]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('no provider profile named "nope"');
    const removed = await cli.run(["config", "remove", "claude"]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("no profile is active now");
    expect(config().active).toBeUndefined();
    expect(Object.keys(config().providers)).toEqual(["local", "piped"]);
    expect((await cli.run(["config", "use", "local"])).code).toBe(0);
  });

  it("refuses an unknown protocol and a bad URL as usage errors", async () => {
    const protocol = await cli.run(["config", "add", "x", "--protocol", "smoke-signals", "--model", "m"]);
    expect(protocol.code).toBe(2);
    expect(protocol.stderr).toContain("chat_completions, responses, anthropic, gemini");
    const url = await cli.run([
      "config",
      "add",
      "x",
      "--protocol",
      "chat_completions",
      "--model",
      "m",
      "--base-url",
      "ftp://nowhere",
    ]);
    expect(url.code).toBe(2);
    expect(Object.keys(config().providers)).not.toContain("x");
  });

  // `config test` goes through the daemon, so these runs may start one.
  const withDaemon = { env: { SKEIN_NO_AUTOSTART: "0" } };

  it("tests the active profile with one tiny request and reports the answer", async () => {
    provider.reset();
    provider.script = () => text("OK");
    const result = await cli.run(["config", "test"], withDaemon);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/✓ local \(chat_completions, fake-model at .*\): answered "OK" in \d+ ms/);
    expect(provider.requests).toHaveLength(1);
    expect(provider.lastRequest.headers.authorization).toBe("Bearer sk-very-secret");
  });

  it("reports what went wrong when the provider refuses (exit 1)", async () => {
    provider.reset();
    provider.script = () => httpError(401, { message: "invalid api key" });
    const result = await cli.run(["config", "test", "local"], withDaemon);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/✗ local .*HTTP 401.*invalid api key/);
  });

  it("reports a missing key variable without sending anything", async () => {
    await cli.run([
      "config",
      "add",
      "needs-env",
      "--protocol",
      "anthropic",
      "--model",
      "m",
      "--api-key-env",
      "UNSET_VARIABLE_FOR_TEST",
    ]);
    provider.reset();
    const result = await cli.run(["config", "test", "needs-env"], withDaemon);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("UNSET_VARIABLE_FOR_TEST");
    expect(provider.requests).toHaveLength(0);
  });

  it("says which profile is unknown to the daemon (exit 4)", async () => {
    const result = await cli.run(["config", "test", "nobody"], withDaemon);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('provider profile "nobody" is not configured');
  });

  it("sends the request from the daemon, with the key variable of the daemon's environment", async () => {
    const added = await addFakeProfile("daemon-key", ["--api-key-env", "SKEIN_TEST_DAEMON_KEY"]);
    expect(added.code, added.stderr).toBe(0);
    expect((await cli.run(["daemon", "stop"])).code).toBe(0);
    const started = await cli.run(["daemon", "start"], { env: { SKEIN_TEST_DAEMON_KEY: "sk-daemon-side" } });
    expect(started.code, started.stderr).toBe(0);
    provider.reset();
    provider.script = () => text("OK");
    const result = await cli.run(["config", "test", "daemon-key"], {
      env: { SKEIN_TEST_DAEMON_KEY: "sk-cli-side" },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('answered "OK"');
    expect(result.stdout).toContain(
      "the daemon used the API key from $SKEIN_TEST_DAEMON_KEY in the daemon's environment (the environment it was started from)",
    );
    expect(provider.requests).toHaveLength(1);
    expect(provider.lastRequest.headers.authorization).toBe("Bearer sk-daemon-side");
  });
});
