/**
 * What the interactive chat shows, through a real pseudo-terminal (tmux): a turn joined mid-way
 * shows its text once.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";
import { deliver, text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { ChatTerminals, matchesFixture, promptReady, screenShows } from "./support/chat-terminal.js";
import { eventually, fakeProfile, occurrences } from "./support/cli-harness.js";
import { tmuxAvailable } from "./support/tmux-pane.js";

describe.skipIf(!tmuxAvailable())("what the chat shows", () => {
  let provider: FakeProvider;
  let daemon: DaemonHarness;
  let terminals: ChatTerminals;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    daemon = await DaemonHarness.start({ providers: { fake: fakeProfile(provider.baseUrl) as never } });
    terminals = new ChatTerminals(daemon);
  });

  afterEach(() => terminals.closeAll());

  afterAll(async () => {
    await daemon.close();
    await provider.close();
  });

  it("shows an answer joined mid-stream once, whole and in order", async () => {
    provider.reset();
    const words = Array.from({ length: 30 }, (_, i) => `word${String(i + 1).padStart(2, "0")} `);
    provider.script = () => deliver(text(words), { delayMs: 60 });
    const id = await daemon.createSession({ name: "joined" });
    await daemon.prompt(id, "a long answer please");
    await eventually(
      () => provider.requests.length > 0,
      () => "the provider was never asked",
    );
    // Let part of the answer stream before attaching.
    await sleep(600);
    const pane = terminals.start(["chat", "--session", "joined"]);
    await screenShows(pane, "word30", 15_000);
    await promptReady(pane);
    const screen = pane.capture();
    expect(occurrences(screen, "word01")).toBe(1);
    expect(occurrences(screen, "word15")).toBe(1);
    expect(occurrences(screen, "word30")).toBe(1);
    expect(screen).toContain(words.join("").trim());
    await matchesFixture(screen, daemon, "attach-mid-turn");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });
});
