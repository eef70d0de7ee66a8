/**
 * Approvals from the command line, against a real daemon with the built-in policy: `skein run`
 * stops with exit 5 when a call waits (and allows with --approve), `skein approvals`, `skein
 * approve` and `skein deny` answer from a script, and in a real terminal (tmux) the chat shows a
 * waiting edit as a diff and takes y / n / a / a message, Ctrl-C interrupting the turn; `skein
 * attach` answers too.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { screenShows, useChatTerminals } from "./support/chat-terminal.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { eventually, occurrences } from "./support/cli-harness.js";
import { type TmuxPane, tmuxAvailable } from "./support/tmux-pane.js";

interface Snapshot {
  status: { phase: string };
  pending_approvals: Array<{ call_id: string; tool: string }>;
}

describe("approvals from the command line", () => {
  const shared = useCliDaemon(undefined, { approvalPolicy: undefined });

  beforeEach(() => {
    shared.provider.reset();
    shared.provider.script = () => text("Done.");
  });

  async function snapshot(sessionId: string): Promise<Snapshot> {
    return (await shared.daemon.api(`/sessions/${sessionId}?tail=0`)).json<Snapshot>();
  }

  function newestSession(): Promise<string> {
    return shared.daemon
      .api("/sessions")
      .then((response) => response.json<{ items: Array<{ id: string }> }>().items[0]!.id);
  }

  function effects(): string {
    try {
      return readFileSync(join(shared.daemon.workspace, "effects.txt"), "utf8");
    } catch {
      return "";
    }
  }

  describe("skein run, approvals, approve and deny", () => {
    it("exits 5 when the turn waits, leaves the call waiting, and a script answers it", async () => {
      // An idle session made just before shares the waiting one's first 8 characters.
      shared.provider.queue(text("Idle."));
      expect((await shared.cli.run(["run", "an idle session"])).code).toBe(0);
      shared.provider.queue(
        toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_run_1" }]),
        text("It ran."),
      );
      const result = await shared.cli.run(["run", "record a run"]);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain(
        "skein: the turn waits for approval of run_command echo ran >> effects.txt (call call_run_1)",
      );
      expect(result.stderr).toMatch(/hint: answer with `skein approve [0-9a-f-]{13} call_run_1`/);
      const sessionId = await newestSession();
      expect(await snapshot(sessionId)).toMatchObject({
        status: { phase: "waiting" },
        pending_approvals: [{ call_id: "call_run_1", tool: "run_command" }],
      });
      expect(effects()).toBe("");

      const listed = await shared.cli.run(["approvals"]);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/call_run_1 {2}run_command echo ran >> effects\.txt/);
      // The prefix shown is unique among every session, not only the waiting ones.
      const shownPrefix = listed.stdout.split(" ")[0]!;
      const all = (await shared.daemon.api("/sessions")).json<{ items: { id: string }[] }>().items;
      expect(
        all.filter((session) => session.id.startsWith(shownPrefix)).map((session) => session.id),
      ).toEqual([sessionId]);

      const approved = await shared.cli.run(["approve", shownPrefix, "call_run"]);
      expect(approved.code).toBe(0);
      expect(approved.stdout).toBe("run_command echo ran >> effects.txt: allowed by skein\n");
      await shared.daemon.idle(sessionId);
      expect(effects()).toBe("ran\n");

      const denied = await shared.cli.run(["deny", sessionId, "call_run_1", "-m", "too late"]);
      expect(denied.code).toBe(1);
      expect(denied.stderr).toMatch(/already answered: allow \(approval_conflict\)/);
      const unknown = await shared.cli.run(["approve", sessionId, "call_nope"]);
      expect(unknown.code).toBe(4);
    });

    it("allows every asked call with --approve and says so on stderr", async () => {
      shared.provider.queue(
        toolCalls([
          { name: "run_command", args: { command: "echo approved >> effects.txt" }, id: "call_ok" },
        ]),
        text("Approved and ran."),
      );
      const before = effects();
      const result = await shared.cli.run(["run", "--approve", "record it"]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("Approved and ran.\n");
      expect(result.stderr).toContain("approved run_command echo approved >> effects.txt (--approve)");
      expect(effects()).toBe(`${before}approved\n`);
      const sessionId = await newestSession();
      const again = await shared.daemon.api(`/sessions/${sessionId}/approvals/call_ok`, {
        method: "POST",
        body: { decision: "allow" },
      });
      expect(again.json()).toMatchObject({ by: "client", client_id: "skein run --approve" });
    });

    it("stops with exit 5 on a question, even with --approve, and takes its answer from skein approve -m", async () => {
      shared.provider.queue(
        toolCalls([{ name: "ask_user", args: { question: "Which colour?" }, id: "call_ask" }]),
        text("Blue it is."),
      );
      const result = await shared.cli.run(["run", "--approve", "paint it"]);
      expect(result.code).toBe(5);
      expect(result.stderr).toContain("skein: the agent asks: Which colour? (call call_ask)");
      const sessionId = await newestSession();
      const answered = await shared.cli.run(["approve", sessionId, "call_ask", "-m", "blue"]);
      expect(answered.code).toBe(0);
      await shared.daemon.idle(sessionId);
      const last = shared.provider.lastRequest.body as {
        messages: Array<{ role: string; content: unknown }>;
      };
      expect(last.messages.find((message) => message.role === "tool")?.content).toBe("blue");
    });
  });

  it("takes the answer from the next line when the chat reads a pipe", async () => {
    shared.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo piped >> effects.txt" }, id: "call_pipe" }]),
      text("Piped and ran."),
    );
    const before = effects();
    const result = await shared.cli.run([], { input: "record it\ny\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("⚠ run_command wants approval");
    expect(result.stdout).toContain("allowed by skein");
    expect(result.stdout).toContain("Piped and ran.");
    expect(effects()).toBe(`${before}piped\n`);
  });

  it("prints a line for each waiting call when attach's output is not a terminal", async () => {
    shared.provider.queue(
      toolCalls([{ name: "write_file", args: { path: "attached.txt", content: "x" }, id: "call_note" }]),
    );
    const sessionId = await shared.daemon.createSession();
    await shared.daemon.prompt(sessionId, "write it");
    const attach = shared.cli.spawn(["attach", sessionId]);
    await eventually(
      () =>
        attach
          .stdout()
          .includes(
            `⚠ waiting for approval: write_file attached.txt — skein approve ${sessionId.slice(0, 13)} call_note`,
          ),
      () => `no notice: ${attach.stdout()} ${attach.stderr()}`,
    );
    attach.child.kill("SIGINT");
    expect((await attach.exited).code).toBe(0);
    await shared.daemon.api(`/sessions/${sessionId}/approvals/call_note`, {
      method: "POST",
      body: { decision: "deny" },
    });
    await shared.daemon.idle(sessionId);
  });

  describe.skipIf(!tmuxAvailable())("in a terminal", () => {
    const terminals = useChatTerminals(shared);

    function open(...args: string[]): TmuxPane {
      return terminals.start(args);
    }

    /** Wait until the last line of the screen ends with `mark` (a prompt waiting for keys). */
    async function promptReady(pane: TmuxPane, mark = "›"): Promise<void> {
      await eventually(
        () => {
          const lines = pane.capture().trimEnd().split("\n");
          return lines.at(-1)?.trimEnd().endsWith(mark) === true ? true : null;
        },
        () => `the prompt never appeared; screen:\n${pane.capture()}`,
        10_000,
      );
    }

    async function say(pane: TmuxPane, line: string): Promise<void> {
      await promptReady(pane);
      pane.type(line);
      pane.press("Enter");
    }

    const question = "allow? [y]es [n]o [a]lways, or a message to deny with ›";

    it("shows a waiting edit as a diff and takes y, a message, and always", async () => {
      writeFileSync(join(shared.daemon.workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
      shared.provider.queue(
        toolCalls([
          {
            name: "edit_file",
            args: { path: "notes.txt", old_text: "beta", new_text: "BETA" },
            id: "call_edit",
          },
        ]),
        text("Edited."),
      );
      const pane = open();
      await screenShows(pane, "Ctrl-D exits");
      await say(pane, "shout beta");
      const shown = await screenShows(pane, question);
      expect(shown).toContain("⚠ edit_file wants approval");
      expect(shown).toContain("--- a/notes.txt");
      expect(shown).toContain("+++ b/notes.txt");
      expect(shown).toContain("@@ -1,3 +1,3 @@");
      expect(shown).toMatch(/^ {2}-beta$/m);
      expect(shown).toMatch(/^ {2}\+BETA$/m);
      await promptReady(pane, "›");
      pane.type("y");
      pane.press("Enter");
      await screenShows(pane, "Edited.");
      expect(readFileSync(join(shared.daemon.workspace, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
      // The transcript shows the edit as a diff too.
      expect(await screenShows(pane, "allowed by skein")).toMatch(/⚙ edit_file/);

      shared.provider.queue(
        toolCalls([{ name: "run_command", args: { command: "echo no >> effects.txt" }, id: "call_no" }]),
        text("Fine, I will not."),
      );
      await say(pane, "try a command");
      await screenShows(pane, "$ echo no >> effects.txt");
      await promptReady(pane, "›");
      pane.type("not now, thanks");
      pane.press("Enter");
      await screenShows(pane, "Fine, I will not.");
      expect(await screenShows(pane, "denied by skein: not now, thanks")).toBeTruthy();
      const denial = JSON.stringify(shared.provider.lastRequest.body);
      expect(denial).toContain("not now, thanks");

      shared.provider.queue(
        toolCalls([{ name: "write_file", args: { path: "one.txt", content: "1" }, id: "call_w1" }]),
        toolCalls([{ name: "write_file", args: { path: "two.txt", content: "2" }, id: "call_w2" }]),
        text("Two files."),
      );
      await say(pane, "write two files");
      await screenShows(pane, "+++ b/one.txt");
      await promptReady(pane, "›");
      pane.type("a");
      pane.press("Enter");
      const done = await screenShows(pane, "Two files.");
      expect(occurrences(done, "wants approval")).toBe(3);
      expect(occurrences(done, "allowed (and remembered for this session) by skein")).toBe(1);
      expect(readFileSync(join(shared.daemon.workspace, "two.txt"), "utf8")).toBe("2");
      await promptReady(pane);
      pane.press("C-d");
      await screenShows(pane, "[exit 0]");
    });

    it("interrupts the turn on Ctrl-C at the question, which denies the call", async () => {
      shared.provider.queue(
        toolCalls([{ name: "run_command", args: { command: "echo cc >> effects.txt" }, id: "call_cc" }]),
      );
      const before = effects();
      const pane = open();
      await screenShows(pane, "Ctrl-D exits");
      await say(pane, "run something");
      await screenShows(pane, question);
      await promptReady(pane, "›");
      pane.press("C-c");
      const screen = await screenShows(pane, "── interrupted");
      expect(screen).toMatch(
        /⚙ run_command \$ echo cc >> effects\.txt ✗ Tool call not run: the user interrupted the turn/,
      );
      expect(occurrences(screen, "wants approval")).toBe(1);
      expect(effects()).toBe(before);
      shared.provider.script = () => text("Still here.");
      await say(pane, "hello again");
      await screenShows(pane, "Still here.");
      await promptReady(pane);
      pane.press("C-d");
      await screenShows(pane, "[exit 0]");
    });

    it("cycles the approval mode on Shift-Tab, and a write then runs or is refused as the mode says", async () => {
      const pane = open();
      await screenShows(pane, "Ctrl-D exits");
      await promptReady(pane);
      pane.press("BTab");
      await screenShows(pane, "approval mode: auto-edit");
      await screenShows(pane, "auto-edit ›");
      shared.provider.queue(
        toolCalls([{ name: "write_file", args: { path: "mode-a.txt", content: "a" }, id: "call_mode_a" }]),
        text("Wrote it."),
      );
      await say(pane, "write mode-a");
      await screenShows(pane, "Wrote it.");
      expect(readFileSync(join(shared.daemon.workspace, "mode-a.txt"), "utf8")).toBe("a");

      await promptReady(pane);
      pane.press("BTab");
      await screenShows(pane, "approval mode: full-auto");
      pane.press("BTab");
      await screenShows(pane, "approval mode: read-only");
      await screenShows(pane, "read-only ›");
      shared.provider.queue(
        toolCalls([{ name: "write_file", args: { path: "mode-b.txt", content: "b" }, id: "call_mode_b" }]),
        text("It was refused."),
      );
      await say(pane, "write mode-b");
      const screen = await screenShows(pane, "It was refused.");
      expect(screen).toContain("approval mode (read-only)");
      expect(occurrences(screen, "wants approval")).toBe(0);
      expect(() => readFileSync(join(shared.daemon.workspace, "mode-b.txt"), "utf8")).toThrow();
      const sessionId = await newestSession();
      expect(
        (await shared.daemon.api(`/sessions/${sessionId}?tail=0`)).json<{ approval_mode: string }>()
          .approval_mode,
      ).toBe("read-only");

      await say(pane, "/approvals ask");
      await screenShows(pane, "approval mode: ask");
      await promptReady(pane);
      pane.press("C-d");
      await screenShows(pane, "[exit 0]");
    });

    it("answers a waiting call from skein attach", async () => {
      shared.provider.queue(
        toolCalls([{ name: "run_command", args: { command: "echo attach >> effects.txt" }, id: "call_att" }]),
        text("Attached and ran."),
      );
      const before = effects();
      const sessionId = await shared.daemon.createSession();
      await shared.daemon.prompt(sessionId, "from elsewhere");
      const pane = open("attach", sessionId);
      await screenShows(pane, "$ echo attach >> effects.txt");
      await promptReady(pane, "›");
      pane.type("y");
      pane.press("Enter");
      await screenShows(pane, "Attached and ran.");
      expect(effects()).toBe(`${before}attach\n`);
      pane.press("C-c");
      await screenShows(pane, "[exit 0]");
    });
  });
});
