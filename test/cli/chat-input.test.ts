/**
 * Typing at the interactive chat, through a real pseudo-terminal (tmux): multi-line prompts,
 * pastes kept whole, prompts typed during a turn queued, history kept between runs, slash
 * commands and @path mentions completed with Tab.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { historyPath } from "../../src/cli/line-editor/prompt-history.js";
import { deliver, deltas, text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import { matchesFixture, promptReady, screenShows, useChatTerminals } from "./support/chat-terminal.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { eventually, occurrences } from "./support/cli-harness.js";
import { tmuxAvailable } from "./support/tmux-pane.js";

/** The text of the newest user message a request carried. */
function lastUserText(request: RecordedRequest | undefined): string {
  const body = request?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  const users = (body?.messages ?? []).filter((message) => message.role === "user");
  const content = users.at(-1)?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part: { text?: string }) => (typeof part.text === "string" ? part.text : ""))
      .join("");
  return "";
}

describe.skipIf(!tmuxAvailable())("typing at the chat prompt", () => {
  const shared = useCliDaemon();
  const terminals = useChatTerminals(shared);

  it("edits a prompt over several lines with Alt-Enter, Shift-Enter and a backslash at the end of a line", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("Three lines received.");
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("first line");
    pane.press("M-Enter");
    pane.type("second line\\");
    pane.press("Enter");
    pane.type("third line");
    // Shift-Enter as terminals report it: the CSI-u protocol, and xterm's modifyOtherKeys.
    pane.type("\u001b[13;2u");
    pane.type("fourth line");
    pane.type("\u001b[27;2;13~");
    pane.type("fifth line");
    await screenShows(pane, "  fifth line");
    pane.press("Enter");
    const screen = await screenShows(pane, "── fake-model");
    expect(lastUserText(shared.provider.requests[0])).toBe(
      "first line\nsecond line\nthird line\nfourth line\nfifth line",
    );
    expect(screen).toContain("› first line\n  second line\n  third line\n  fourth line\n  fifth line\n");
    await promptReady(pane);
    await matchesFixture(pane.capture(), shared.daemon, "multi-line-prompt");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("keeps the cursor where the text is drawn with wide characters and emoji, and edits them whole", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("Got it.");
    const pane = terminals.start();
    await promptReady(pane);
    const start = pane.cursor();
    // Six columns of CJK, two of an emoji made of three people, one letter with its accent.
    pane.type("日本語👨‍👩‍👧e\u0301x");
    await screenShows(pane, "x");
    const cursorAt = (column: number) =>
      eventually(
        () => pane.cursor().x === start.x + column,
        () => `cursor at ${pane.cursor().x - start.x}, not ${column}, on:\n${pane.captureVisible()}`,
      );
    await cursorAt(10);
    pane.press("Left", "Left", "BSpace");
    await cursorAt(6);
    pane.press("End");
    await cursorAt(8);
    pane.press("Enter");
    await screenShows(pane, "── fake-model");
    expect(lastUserText(shared.provider.requests[0])).toBe("日本語e\u0301x");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("puts the workspace back to before the last turn that called tools with /undo", async () => {
    shared.provider.reset();
    shared.provider.queue(
      toolCalls([{ name: "write_file", args: { path: "made-by-agent.txt", content: "new\n" } }]),
      text("Wrote it."),
    );
    const made = join(shared.daemon.workspace, "made-by-agent.txt");
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("make a file");
    pane.press("Enter");
    await screenShows(pane, "Wrote it.");
    await promptReady(pane);
    expect(existsSync(made)).toBe(true);
    pane.type("/undo");
    pane.press("Enter");
    await screenShows(pane, "1 file changed back");
    expect(pane.capture()).toContain("  made-by-agent.txt");
    expect(existsSync(made)).toBe(false);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("sends a pasted a⏎b⏎c as one prompt", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("One paste, one prompt.");
    const pane = terminals.start();
    await promptReady(pane);
    pane.paste("alpha\nbeta\ngamma");
    await screenShows(pane, "  gamma");
    // Nothing was sent by the newlines inside the paste.
    expect(shared.provider.requests).toHaveLength(0);
    pane.press("Enter");
    await screenShows(pane, "One paste, one prompt.");
    expect(shared.provider.requests).toHaveLength(1);
    expect(lastUserText(shared.provider.requests[0])).toBe("alpha\nbeta\ngamma");
    // A large paste with Windows line ends: whole, one line break each.
    await promptReady(pane);
    const lines = Array.from({ length: 400 }, (_, i) => `pasted line ${i} ${"x".repeat(40)}`);
    pane.paste(lines.join("\r\n"), { raw: true });
    await screenShows(pane, "pasted line 399");
    // Taller than the screen: the lines around the cursor, and a count of the rest.
    expect(pane.captureVisible()).toMatch(/ {2}… \d+ lines above\n/);
    pane.press("Enter");
    await eventually(
      () => shared.provider.requests.length === 2,
      () => "the large paste was not sent",
    );
    expect(lastUserText(shared.provider.requests[1])).toBe(lines.join("\n"));
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("queues a prompt typed while a turn streams, echoing it as it is typed, and answers it next", async () => {
    shared.provider.reset();
    // Long enough (6 s) that the typing surely happens while it streams, also on a busy machine.
    shared.provider.queue(
      deliver(deltas(300, "tick "), { delayMs: 20 }),
      text("The queued question is answered."),
    );
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("start something slow");
    pane.press("Enter");
    await screenShows(pane, "tick tick tick");
    pane.type("what comes next");
    // Echoed below the streaming answer while the turn still runs.
    const typing = await screenShows(pane, "› what comes next");
    expect(typing).toMatch(/responding…|thinking…/);
    pane.press("Enter");
    await screenShows(pane, "queued: what comes next");
    const screen = await screenShows(pane, "The queued question is answered.", 20_000);
    expect(shared.provider.requests).toHaveLength(2);
    expect(lastUserText(shared.provider.requests[1])).toBe("what comes next");
    // The queued prompt is shown above its answer when its turn starts.
    expect(screen).toMatch(/› what comes next\nThe queued question is answered\./);
    expect(occurrences(screen, "The queued question is answered.")).toBe(1);
    await promptReady(pane);
    await matchesFixture(pane.capture(), shared.daemon, "queued-prompt");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("keeps the prompt history per workspace between runs (0600), with Up and Ctrl-R", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("Noted.");
    const first = terminals.start();
    await promptReady(first);
    first.type("a prompt worth keeping");
    first.press("Enter");
    await screenShows(first, "── fake-model");
    await promptReady(first);
    first.type("another one");
    first.press("Enter");
    await screenShows(first, /── fake-model[\s\S]*── fake-model/);
    await promptReady(first);
    first.press("C-d");
    await screenShows(first, "[exit 0]");
    const file = historyPath(shared.daemon.home, shared.daemon.workspace);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = terminals.start();
    await promptReady(second);
    second.press("Up");
    await screenShows(second, "› another one");
    second.press("Up");
    await screenShows(second, "› a prompt worth keeping");
    second.press("Down", "Down", "C-u");
    second.press("C-r");
    second.type("worth");
    const found = await screenShows(second, "history search: worth");
    expect(found).toContain("› a prompt worth keeping");
    second.press("Enter");
    second.type(" again");
    second.press("Enter");
    await screenShows(second, "── fake-model");
    expect(lastUserText(shared.provider.requests.at(-1))).toBe("a prompt worth keeping again");
    await promptReady(second);
    second.press("C-d");
    await screenShows(second, "[exit 0]");
  });

  it("completes slash commands with Tab and lists them with /help", async () => {
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("/");
    pane.press("Tab");
    const listed = await screenShows(pane, "/sessions");
    expect(listed).toContain("/compact");
    expect(listed).toContain("/copy");
    pane.type("he");
    pane.press("Tab");
    await screenShows(pane, "› /help ");
    pane.press("Enter");
    const help = await screenShows(pane, "Ctrl-C twice on an empty prompt exits.");
    for (const command of ["/new", "/sessions", "/fork", "/model", "/effort", "/compact", "/copy", "/exit"]) {
      expect(help).toContain(command);
    }
    await promptReady(pane);
    await matchesFixture(pane.capture(), shared.daemon, "slash-help");
    pane.type("/ex");
    pane.press("Tab", "Enter");
    await screenShows(pane, "[exit 0]");
  });

  it("completes an @path mention with Tab and attaches the file's text to the prompt", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("I read the notes.");
    writeFileSync(join(shared.daemon.workspace, "notes-for-the-model.md"), "remember the milk\n");
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("summarize @notes-for");
    pane.press("Tab");
    await screenShows(pane, "› summarize @notes-for-the-model.md ");
    pane.press("Enter");
    await screenShows(pane, "attached @notes-for-the-model.md (2 lines)");
    await screenShows(pane, "I read the notes.");
    const sent = lastUserText(shared.provider.requests[0]);
    expect(sent.startsWith("summarize @notes-for-the-model.md")).toBe(true);
    expect(sent).toContain("``` notes-for-the-model.md\nremember the milk\n```");
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("starts a new session with /new and lists this workspace's sessions with /sessions", async () => {
    const pane = terminals.start();
    const first = await screenShows(pane, "Ctrl-D exits");
    const firstId = /new session ([0-9a-f-]{36})/.exec(first)?.[1];
    await promptReady(pane);
    pane.type("/new");
    pane.press("Enter");
    const second = await eventually(
      () => {
        const ids = [...pane.capture().matchAll(/new session ([0-9a-f-]{36})/g)].map((match) => match[1]);
        return ids.length === 2 ? ids : null;
      },
      () => `no second session; screen:\n${pane.capture()}`,
    );
    expect(second[0]).toBe(firstId);
    await promptReady(pane);
    pane.type("/sessions");
    pane.press("Enter");
    await screenShows(pane, "switch to one with /sessions N");
    const screen = pane.capture();
    // Numbered rows, the chat's own session marked; pick the first session by its number.
    expect(screen).toMatch(new RegExp(`\\* +\\d+  ${second[1]!.slice(0, 8)}`));
    const row = new RegExp(`  (\\d+)  ${firstId!.slice(0, 8)}`).exec(screen);
    expect(row, screen).not.toBeNull();
    await promptReady(pane);
    pane.type(`/sessions ${row![1]}`);
    pane.press("Enter");
    await screenShows(pane, `session ${firstId} ·`);
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("lists the profiles and models to pick from with /model, and picks one by number", async () => {
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("/model");
    pane.press("Enter");
    const listed = await screenShows(pane, "pick one with /model N");
    expect(listed).toMatch(/\* {2}1 {2}fake {2}fake-model/);
    await promptReady(pane);
    pane.type("/model 1");
    pane.press("Enter");
    await screenShows(pane, "from the next turn on: fake-model (fake)");
    await promptReady(pane);
    pane.type("/model 7");
    pane.press("Enter");
    await screenShows(pane, "no choice 7; /model lists them");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("copies the last answer with /copy and goes on in a copy of the session with /fork", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("Copy this answer, please.");
    const pane = terminals.start();
    pane.setOption("set-clipboard", "on");
    const first = await screenShows(pane, "Ctrl-D exits");
    const original = /new session ([0-9a-f-]{36})/.exec(first)?.[1];
    await promptReady(pane);
    pane.type("say something");
    pane.press("Enter");
    await screenShows(pane, "── fake-model");
    await promptReady(pane);
    pane.type("/copy");
    pane.press("Enter");
    await screenShows(pane, "copied the last answer (25 characters)");
    await eventually(
      () => pane.buffer() === "Copy this answer, please.",
      () => `the clipboard holds ${JSON.stringify(pane.buffer())}`,
    );
    await promptReady(pane);
    pane.type("/fork");
    pane.press("Enter");
    await screenShows(pane, `forked ${original}`);
    const ids = await eventually(
      () => {
        const found = [...pane.capture().matchAll(/new session ([0-9a-f-]{36})/g)].map((match) => match[1]);
        return found.length === 2 ? found : null;
      },
      () => `the chat did not go on in the fork; screen:\n${pane.capture()}`,
    );
    expect(ids[1]).not.toBe(original);
    await promptReady(pane);
    shared.provider.script = () => text("Still the same conversation.");
    pane.type("and in the fork?");
    pane.press("Enter");
    await screenShows(pane, "Still the same conversation.");
    // The fork carries the conversation: the model sees the first prompt too.
    const body = JSON.stringify(shared.provider.requests.at(-1)?.body);
    expect(body).toContain("say something");
    expect(body).toContain("and in the fork?");
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("switches the model with /model and the effort with /effort from the next turn on, and back with default", async () => {
    shared.provider.reset();
    shared.provider.script = () => text("Answered by whichever model.");
    const pane = terminals.start();
    const banner = await screenShows(pane, "Ctrl-D exits");
    const sessionId = /new session ([0-9a-f-]{36})/.exec(banner)?.[1];
    await promptReady(pane);
    pane.type("/model other-model");
    pane.press("Enter");
    await screenShows(pane, "from the next turn on: other-model (fake)");
    pane.type("/effort high");
    pane.press("Enter");
    await screenShows(pane, "other-model (fake) · effort high");
    pane.type("/effort sideways");
    pane.press("Enter");
    await screenShows(pane, "effort must be one of minimal, low, medium, high, xhigh or default");
    pane.type("which model?");
    pane.press("Enter");
    await screenShows(pane, "Answered by whichever model.");
    expect((shared.provider.requests[0]!.body as { model?: string }).model).toBe("other-model");
    const snapshot = (await shared.daemon.api(`/sessions/${sessionId}`)).json<{
      settings: { effective: { model: string; request_config: { reasoning?: { effort?: string } } } };
    }>();
    expect(snapshot.settings.effective.model).toBe("other-model");
    expect(snapshot.settings.effective.request_config.reasoning).toEqual({ effort: "high" });

    await promptReady(pane);
    pane.type("/model default");
    pane.press("Enter");
    await screenShows(pane, "from the next turn on: fake-model (fake) · effort high");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });
});
