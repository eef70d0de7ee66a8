/**
 * What the interactive chat shows, through a real pseudo-terminal (tmux): a turn joined mid-way
 * shows its text once; answers' markdown rendered (plain with NO_COLOR); tool calls with their
 * full command and a preview of the result; edits as diffs; hidden thinking as one line.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { deliver, reasoning, text, toolCalls } from "../support/fake-provider/reply.js";
import { matchesFixture, promptReady, screenShows, useChatTerminals } from "./support/chat-terminal.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { eventually, occurrences } from "./support/cli-harness.js";
import { tmuxAvailable } from "./support/tmux-pane.js";

/** `text` drawn in the SGR colour `code` (tmux may add other attributes around it). */
function coloured(code: string, text: string): RegExp {
  const sgr = "\u001b\\[[0-9;]*";
  return new RegExp(`${sgr}${code}m(${sgr}m)*${text.replace(/[+.*?()[\]\\]/g, "\\$&")}`);
}

describe.skipIf(!tmuxAvailable())("what the chat shows", () => {
  const shared = useCliDaemon();
  const terminals = useChatTerminals(shared);

  it("shows an answer joined mid-stream once, whole and in order", async () => {
    shared.provider.reset();
    const words = Array.from({ length: 30 }, (_, i) => `word${String(i + 1).padStart(2, "0")} `);
    shared.provider.script = () => deliver(text(words), { delayMs: 60 });
    const id = await shared.daemon.createSession({ name: "joined" });
    await shared.daemon.prompt(id, "a long answer please");
    await eventually(
      () => shared.provider.requests.length > 0,
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
    await matchesFixture(screen, shared.daemon, "attach-mid-turn");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  const markdownAnswer = [
    "## Plan\n",
    "Use **bold** and `inline code`, see [the docs](https://example.com/docs).\n",
    "\n",
    "- first step\n",
    "- second step\n",
    "\n",
    "```ts\n",
    'const greeting: string = "hello";\n',
    "```\n",
    "> a quoted line\n",
  ];

  it("renders an answer's markdown on a terminal, with colours in code blocks", async () => {
    shared.provider.reset();
    shared.provider.script = () => deliver(text(markdownAnswer), { delayMs: 20 });
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("show me markdown");
    pane.press("Enter");
    await screenShows(pane, "── fake-model");
    await promptReady(pane);
    const screen = pane.capture();
    expect(screen).toContain("\nPlan\n");
    expect(screen).toContain("Use bold and inline code, see the docs (https://example.com/docs).");
    expect(screen).toContain("• first step\n• second step");
    expect(screen).toContain('const greeting: string = "hello";');
    expect(screen).toContain("│ a quoted line");
    expect(screen).not.toContain("**bold**");
    const styled = pane.captureStyled();
    // The keyword coloured (magenta), the string green: highlighted, not just printed.
    expect(styled).toMatch(coloured("35", "const"));
    expect(styled).toMatch(coloured("32", '"hello"'));
    await matchesFixture(screen, shared.daemon, "markdown-answer");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("leaves the markdown as written with NO_COLOR", async () => {
    shared.provider.reset();
    shared.provider.script = () => text(markdownAnswer);
    const pane = terminals.start([], { env: { NO_COLOR: "1" } });
    await promptReady(pane);
    pane.type("show me markdown");
    pane.press("Enter");
    const screen = await screenShows(pane, "── fake-model");
    expect(screen).toContain("## Plan\nUse **bold** and `inline code`");
    expect(screen).toContain("- first step\n- second step");
    expect(screen).toContain("```ts\n");
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("shows a command in full with its exit code and output preview, and an edit as a coloured diff", async () => {
    shared.provider.reset();
    writeFileSync(join(shared.daemon.workspace, "greeting.txt"), "hello\nworld\n");
    const command =
      "for i in 1 2 3 4 5 6; do echo line-$i; done; echo done-with-a-rather-long-command-line-here";
    shared.provider.queue(
      toolCalls([{ name: "run_command", args: { command } }]),
      toolCalls([
        { name: "edit_file", args: { path: "greeting.txt", old_text: "world", new_text: "there" } },
      ]),
      text("Edited."),
    );
    const pane = terminals.start();
    await promptReady(pane);
    pane.type("run and edit");
    pane.press("Enter");
    await screenShows(pane, "Edited.");
    await promptReady(pane);
    const screen = pane.capture();
    expect(screen).toContain(
      `⚙ run_command $ ${command} → exit 0\n  │ line-1\n  │ line-2\n  │ line-3\n  … +4 lines`,
    );
    expect(screen).toContain("⚙ edit_file greeting.txt → ");
    expect(screen).toMatch(
      /--- a\/greeting\.txt\n\s+\+\+\+ b\/greeting\.txt\n\s+@@ -1,2 \+1,2 @@\n\s+ hello\n\s+-world\n\s+\+there/,
    );
    const styled = pane.captureStyled();
    expect(styled).toMatch(coloured("31", "-world"));
    expect(styled).toMatch(coloured("32", "+there"));
    await matchesFixture(screen, shared.daemon, "tool-preview-and-diff");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("shows hidden thinking as one dim line, and the status line while waiting for the model", async () => {
    shared.provider.reset();
    shared.provider.script = async () => {
      // A provider that is slow to answer at all.
      await sleep(4_000);
      return reasoning("A long private thought.", text("Answer after a pause."));
    };
    const pane = terminals.start(["chat", "--hide-thinking"]);
    await promptReady(pane);
    pane.type("take a moment");
    pane.press("Enter");
    const waiting = await screenShows(pane, "waiting for the model…", 8_000);
    expect(waiting).toMatch(/thinking… · waiting for the model… \d+ s · \d+\.\d s/);
    const screen = await screenShows(pane, "── fake-model", 10_000);
    expect(screen).toContain("✻ thinking… (hidden; /thinking shows it)");
    expect(screen).not.toContain("A long private thought.");
    expect(screen).not.toContain("waiting for the model");
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });
});
