/**
 * Where bubblewrap is missing, `run_command` cannot be offered: `config test` and a new
 * `skein run` session and `skein chat` say so, with the install hint and the unconfined opt-in.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";
import { text } from "../support/fake-provider/reply.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { ChatTerminals, promptReady, screenShows } from "./support/chat-terminal.js";
import { CliSandbox, fakeProfile } from "./support/cli-harness.js";
import { tmuxAvailable } from "./support/tmux-pane.js";

describe("telling whether commands can run", () => {
  const fake = withFakeProvider({ script: () => text("OK") });
  let withoutBwrap: CliSandbox;
  let withBwrap: CliSandbox;

  beforeAll(async () => {
    withoutBwrap = new CliSandbox({ env: { SKEIN_BWRAP_PATH: "/nonexistent/skein-test/bwrap" } });
    withoutBwrap.writeProviders({ fake: fakeProfile(fake().baseUrl) });
    withBwrap = new CliSandbox();
    withBwrap.writeProviders({ fake: fakeProfile(fake().baseUrl) });
  });

  afterAll(async () => {
    await withoutBwrap.cleanup();
    await withBwrap.cleanup();
  });

  it("`config test` warns that run_command is not offered, with the install hint and the opt-in", async () => {
    const result = await withoutBwrap.run(["config", "test"], { timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("! run_command is not offered: cannot run /nonexistent/skein-test/bwrap");
    expect(result.stderr).toContain("hint: install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap");
    expect(result.stderr).toContain("set SKEIN_UNCONFINED_SHELL=1 in the daemon's environment");
  }, 40_000);

  it("a new `skein run` session says so under its id", async () => {
    const result = await withoutBwrap.run(["run", "hi"], { timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^new session [0-9a-f-]{36}\n! run_command is not offered: /);
    expect(result.stdout).toBe("OK\n");
  }, 40_000);

  it("stays quiet where the sandbox works", async () => {
    const result = await withBwrap.run(["config", "test"], { timeoutMs: 30_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("run_command");
    const run = await withBwrap.run(["run", "hi"], { timeoutMs: 30_000 });
    expect(run.stderr).toMatch(/^new session [0-9a-f-]{36}\n$/);
  }, 40_000);

  it.skipIf(!tmuxAvailable())(
    "chat says so under its header, before the first prompt",
    async () => {
      const daemon = await DaemonHarness.start({
        providers: { fake: fakeProfile(fake().baseUrl) as never },
        env: { SKEIN_BWRAP_PATH: "/nonexistent/skein-test/bwrap" },
      });
      const terminals = new ChatTerminals({ daemon });
      try {
        const pane = terminals.start();
        await promptReady(pane);
        const screen = pane.capture();
        expect(screen).toMatch(
          /Ctrl-D exits\.\n! run_command is not offered: cannot run \/nonexistent\/skein-test\/bwrap/,
        );
        expect(screen).toContain("hint: install bubblewrap");
        pane.press("C-d");
        await screenShows(pane, "[exit 0]");
      } finally {
        terminals.closeAll();
        await daemon.close();
      }
    },
    40_000,
  );
});
