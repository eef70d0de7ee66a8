/**
 * The interactive chat through a real pseudo-terminal (tmux): type a prompt, watch the answer
 * stream, interrupt a slow turn with Ctrl-C, leave with Ctrl-C or Ctrl-D.
 */
import { describe, expect, it } from "vitest";
import { deliver, deltas, reasoning, text, toolCalls } from "../support/fake-provider/reply.js";
import { promptReady, screenShows, useChatTerminals } from "./support/chat-terminal.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { eventually, occurrences } from "./support/cli-harness.js";
import { type TmuxPane, tmuxAvailable } from "./support/tmux-pane.js";

describe.skipIf(!tmuxAvailable())("interactive chat in a terminal", () => {
  const shared = useCliDaemon();
  const terminals = useChatTerminals(shared);

  function chat(...args: string[]): TmuxPane {
    return terminals.start(args);
  }

  it("streams the answer to a typed prompt, with thinking and tool calls, and a status line", async () => {
    shared.provider.reset();
    shared.provider.queue(
      deliver(
        reasoning(
          "Pondering the request.",
          toolCalls([{ name: "write_file", args: { path: "tty.txt", content: "hi" } }]),
        ),
        { delayMs: 20 },
      ),
      deliver(text(["Streamed ", "through ", "a real ", "terminal."]), { delayMs: 40 }),
    );
    const pane = chat();
    await screenShows(pane, "Ctrl-D exits");
    await promptReady(pane);
    pane.type("hello from tmux");
    pane.press("Enter");
    const screen = await screenShows(pane, "Streamed through a real terminal.");
    expect(screen).toContain("› hello from tmux");
    expect(occurrences(screen, "hello from tmux")).toBe(1);
    expect(screen).toContain("Pondering the request.");
    expect(screen).toMatch(/⚙ write_file tty\.txt → created tty\.txt/);
    const done = await screenShows(pane, "── fake-model");
    expect(done).toMatch(/── fake-model · \d+ in \/ \d+ out · session \d+ tokens/);
    expect(occurrences(done, "Streamed through a real terminal.")).toBe(1);
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("interrupts a slow turn on Ctrl-C, then exits on a second Ctrl-C at the prompt", async () => {
    shared.provider.reset();
    shared.provider.script = () => deliver(deltas(400, "tick "), { delayMs: 25 });
    const pane = chat();
    await screenShows(pane, "Ctrl-D exits");
    await promptReady(pane);
    pane.type("take your time");
    pane.press("Enter");
    await screenShows(pane, "tick tick tick");
    pane.press("C-c");
    const screen = await screenShows(pane, "── interrupted");
    expect(screen).toContain("interrupting…");
    await eventually(
      () => shared.provider.requests[0]?.clientAborted === true,
      () => "the provider request was not aborted",
    );
    // The session is usable again at once.
    shared.provider.script = () => text("Back after the interrupt.");
    await promptReady(pane);
    pane.type("still there?");
    pane.press("Enter");
    await screenShows(pane, "Back after the interrupt.");
    await screenShows(pane, "session ");
    await promptReady(pane);
    pane.press("C-c");
    await screenShows(pane, "press Ctrl-C again to exit");
    pane.press("C-c");
    await screenShows(pane, "[exit 130]");
  });

  it("interrupts, instead of dying, on a Ctrl-C that arrives with the prompt before the turn starts", async () => {
    shared.provider.reset();
    shared.provider.script = () => deliver(deltas(400, "tock "), { delayMs: 25 });
    const pane = chat();
    await screenShows(pane, "Ctrl-D exits");
    await promptReady(pane);
    pane.type("stop me at once");
    // Enter and Ctrl-C back to back: the Ctrl-C lands before the terminal is in raw mode.
    pane.press("Enter", "C-c");
    const screen = await screenShows(pane, "── interrupted");
    expect(screen).not.toContain("[exit");
    shared.provider.script = () => text("Still alive.");
    await promptReady(pane);
    pane.type("and now?");
    pane.press("Enter");
    await screenShows(pane, "Still alive.");
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("resumes a session with --session and shows its recent history", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("An answer worth remembering.");
    const id = await shared.daemon.createSession({ name: "resumable" });
    await shared.daemon.turn(id, "a question from before");
    const pane = chat("chat", "--session", "resumable");
    const screen = await screenShows(pane, "An answer worth remembering.");
    expect(screen).toContain(`session ${id}`);
    expect(screen).toContain("› a question from before");
    // The history shows before the prompt takes keys: typed earlier, the Enter would be lost.
    await promptReady(pane);
    pane.type("/status");
    pane.press("Enter");
    await screenShows(pane, `session ${id} · fake-model · idle`);
    pane.type("/exit");
    pane.press("Enter");
    await screenShows(pane, "[exit 0]");
  });

  it("keeps the prompt and the typed draft intact while another client's turn streams in", async () => {
    shared.provider.reset();
    shared.provider.script = () => deliver(text(["Answer ", "for the ", "other client."]), { delayMs: 30 });
    const id = await shared.daemon.createSession({ name: "shared" });
    const pane = chat("chat", "--session", "shared");
    await screenShows(pane, "Ctrl-D exits");
    await promptReady(pane);
    pane.type("my draft");
    await screenShows(pane, "› my draft");
    await shared.daemon.prompt(id, "a prompt from elsewhere");
    await screenShows(pane, "Answer for the other client.");
    const screen = await eventually(
      () => {
        const lines = pane
          .capture()
          .split("\n")
          .filter((line) => line.trim() !== "");
        return lines.at(-1)?.startsWith("› my draft") === true ? lines : null;
      },
      () => `the prompt did not come back below the output:\n${pane.capture()}`,
    );
    // The other client's output is on lines of its own, never spliced into the prompt line.
    expect(screen.filter((line) => line.includes("my draft"))).toEqual(["› my draft"]);
    expect(screen.some((line) => line.startsWith("Answer for the other client."))).toBe(true);
    pane.press("C-u", "C-d");
    await screenShows(pane, "[exit 0]");
  });
});
