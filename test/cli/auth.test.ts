/**
 * `skein auth set|list|remove`: a key stored in the home's secrets file (0600, never from argv,
 * never printed) is used by a daemon that was started before it was stored, from its next
 * turn; `config test` says where the daemon looked and the command that fixes it; a sandboxed
 * command cannot read the file.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpError, text, toolCalls } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { screenShows } from "./support/chat-terminal.js";
import { CliSandbox, skeinBin } from "./support/cli-harness.js";
import { TmuxPane, tmuxAvailable } from "./support/tmux-pane.js";

const key = "sk-stored-test-key-0123456789";

describe("skein auth", () => {
  let provider: FakeProvider;
  let cli: CliSandbox;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    // The fake provider wants this key, as a real vendor would.
    provider.script = (request) =>
      request.headers.authorization === `Bearer ${key}`
        ? text("Keyed answer.")
        : httpError(401, { message: "invalid key" });
    cli = new CliSandbox();
    cli.writeProviders({
      fake: {
        protocol: "chat_completions",
        baseUrl: `${provider.baseUrl}/v1`,
        model: "fake-model",
        apiKeyEnv: "FAKE_PROVIDER_KEY",
      },
    });
    const started = await cli.run(["daemon", "start"], { timeoutMs: 30_000 });
    expect(started.code, started.stderr).toBe(0);
  }, 40_000);

  afterAll(async () => {
    await cli.cleanup();
    await provider.close();
  });

  it("config test says where the daemon looked and the one command that fixes it", async () => {
    const result = await cli.run(["config", "test"], { timeoutMs: 30_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `the daemon looked for the API key at: ${join(cli.home, "secrets.json")} (no key for profile "fake"); $FAKE_PROVIDER_KEY in the daemon's environment (not set)`,
    );
    expect(result.stderr).toContain("fix: `skein auth set fake`");
    const doctor = await cli.run(["doctor"], { timeoutMs: 30_000 });
    expect(doctor.stdout).toContain('secrets.json (no key for profile "fake")');
    expect(doctor.stdout).toContain("fix: `skein auth set fake`");
  }, 40_000);

  it("refuses a key given on the command line and stores nothing", async () => {
    const result = await cli.run(["auth", "set", "fake", key]);
    expect(result.code).toBe(2);
    expect((await cli.run(["auth", "list"])).stdout).toContain("no stored API keys");
    const empty = await cli.run(["auth", "set", "fake"], { input: "  \n" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("the API key is empty; nothing was stored");
  });

  it("stores a key read from stdin (0600), which the running daemon uses from its next turn", async () => {
    const set = await cli.run(["auth", "set", "fake"], { input: `${key}\n` });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(
      `stored the API key of "fake" in ${join(cli.home, "secrets.json")} (mode 0600)`,
    );
    expect(set.stdout + set.stderr).not.toContain(key);
    expect(statSync(join(cli.home, "secrets.json")).mode & 0o777).toBe(0o600);
    expect(statSync(cli.home).mode & 0o777).toBe(0o700);

    const run = await cli.run(["run", "hi"], { timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("Keyed answer.\n");
    const tested = await cli.run(["config", "test"], { timeoutMs: 30_000 });
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout).toContain(`the daemon used the API key from ${join(cli.home, "secrets.json")}`);

    const list = await cli.run(["auth", "list"]);
    expect(list.stdout).toBe("fake\n");
    expect((await cli.run(["auth", "list", "--json"])).stdout).not.toContain(key);
  }, 60_000);

  it("keeps the secrets file out of a sandboxed command's reach", async () => {
    const secrets = join(cli.home, "secrets.json");
    provider.queue(
      toolCalls([{ name: "run_command", args: { command: `cat ${secrets}; echo exit=$?` }, id: "call_cat" }]),
    );
    provider.queue(text("Done."));
    const before = provider.requests.length;
    const run = await cli.run(["run", "--approve", "read the secrets"], { timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const followUp = provider.requests.slice(before).at(-1)!;
    expect(followUp.rawBody).toContain("exit=1");
    expect(followUp.rawBody).not.toContain(key.slice(3));
  }, 60_000);

  it("removes a stored key, after which turns fail again naming the fix", async () => {
    const removed = await cli.run(["auth", "remove", "fake"]);
    expect(removed.code).toBe(0);
    expect((await cli.run(["auth", "remove", "fake"])).code).toBe(4);
    const run = await cli.run(["run", "hi"], { timeoutMs: 30_000 });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("skein auth set fake");
  }, 60_000);

  it.skipIf(!tmuxAvailable())(
    "asks for the key on a terminal without echoing it",
    async () => {
      const pane = TmuxPane.start([process.execPath, skeinBin, "auth", "set", "other"], {
        cwd: cli.workspace,
        env: cli.env,
      });
      try {
        await screenShows(pane, 'API key for "other": ');
        pane.type("sk-typed-but-hidden");
        pane.press("BSpace");
        pane.type("N");
        pane.press("Enter");
        const screen = await screenShows(pane, "[exit 0]");
        expect(screen).not.toContain("sk-typed");
        expect(screen).toContain('stored the API key of "other"');
        const stored = JSON.parse(readFileSync(join(cli.home, "secrets.json"), "utf8")) as {
          apiKeys: Record<string, string>;
        };
        expect(stored.apiKeys.other).toBe("sk-typed-but-hiddeN");
      } finally {
        pane.close();
      }
    },
    30_000,
  );
});
