/**
 * Subagents in `skein chat`, through a real terminal (tmux) against the daemon and the fake
 * provider: the parent's `task` shows a live line while its child works, the child's approval
 * is asked in the parent's chat and answered at the child, `/agents` typed during the turn lists
 * the child at once, the end notice gives its tokens, and `/agents 1` opens the child (its
 * history shown) and `/parent` comes back.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import { promptReady, screenShows, useChatTerminals } from "./support/chat-terminal.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { tmuxAvailable } from "./support/tmux-pane.js";

/** The child's agent; its prompt marks the child's requests (the parent's carry only its description). */
const agents = { alpha: { description: "Writes notes (alpha).", prompt: "MARK-ALPHA: you write notes." } };

/** The parent delegates once; the child writes a file (asked), then answers slowly. */
function delegating(request: RecordedRequest) {
  if (!request.rawBody.includes("MARK-ALPHA")) {
    if (request.rawBody.includes("ANSWER-ALPHA")) return text("parent done with the note");
    return toolCalls([{ name: "task", args: { agent: "alpha", prompt: "write the note" }, id: "call_t" }]);
  }
  if (!request.rawBody.includes("call_w"))
    return toolCalls([{ name: "write_file", args: { path: "note.txt", content: "hi" }, id: "call_w" }]);
  const pieces = Array.from({ length: 12 }, (_, i) => (i === 11 ? "ANSWER-ALPHA written" : "."));
  return text(pieces, { delivery: { delayMs: 200 } });
}

describe.skipIf(!tmuxAvailable())("agents in the chat", () => {
  const shared = useCliDaemon(delegating, { agents, approvalPolicy: undefined });
  const terminals = useChatTerminals(shared);

  it("shows a running task live, asks its approval, lists and opens the agent and comes back", async () => {
    const pane = terminals.start([], { width: 120 });
    await screenShows(pane, "Ctrl-D exits");
    await promptReady(pane);
    pane.type("delegate the note");
    pane.press("Enter");
    await screenShows(pane, /agent alpha is working in session [0-9a-f-]{13}/);
    // The child's write is asked here and answered at the child's session.
    const asked = await screenShows(pane, "allow?");
    expect(asked).toContain("a task's agent asks (its session ");
    expect(asked).toMatch(/write_file .*wants approval/);
    pane.type("y");
    pane.press("Enter");
    await screenShows(pane, "allowed by skein");
    // While the child streams its answer, its live line sits above the prompt.
    await screenShows(pane, /↳ alpha · write the note · \d+\.\d s/);
    // Typed during the turn, /agents answers at once (the child still streams).
    pane.type("/agents");
    pane.press("Enter");
    const listed = await screenShows(pane, /1 {2}[0-9a-f-]{13} {2}alpha {2}running/);
    expect(listed).toContain("write the note");
    const ended = await screenShows(pane, "parent done with the note");
    expect(ended).toMatch(/agent alpha completed · \d+ tokens/);
    expect(existsSync(join(shared.daemon.workspace, "note.txt"))).toBe(true);
    await promptReady(pane);
    pane.type("/agents 1");
    pane.press("Enter");
    const child = await screenShows(pane, /agent alpha's session, a task of [0-9a-f-]{13}/);
    expect(child).toContain("ANSWER-ALPHA written");
    await promptReady(pane);
    pane.type("/parent");
    pane.press("Enter");
    await screenShows(pane, /back to session [0-9a-f-]{36}/);
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });

  it("asks, in a chat opened on the parent, the call its agent already waits on", async () => {
    const parent = await shared.daemon.createSession();
    await shared.daemon.prompt(parent, "delegate before the chat");
    await eventually("the agent waiting for its write", async () => {
      const children = await shared.daemon.api(`/sessions?parent_id=${parent}`);
      const items = children.json<{ items: { status: { phase: string } }[] }>().items;
      return items.some((child) => child.status.phase === "waiting") ? true : undefined;
    });
    const pane = terminals.start(["--session", parent], { width: 120 });
    const asked = await screenShows(pane, "allow?");
    expect(asked).toContain("a task's agent asks (its session ");
    pane.type("y");
    pane.press("Enter");
    await screenShows(pane, "parent done with the note");
    await promptReady(pane);
    pane.press("C-d");
    await screenShows(pane, "[exit 0]");
  });
});
