/**
 * `skein run` end to end: the real binary against a real daemon and the fake provider.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";
import {
  deliver,
  deltas,
  hang,
  httpError,
  reasoning,
  text,
  toolCalls,
} from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { CliSandbox, eventually, fakeProfile, skeinBin } from "./support/cli-harness.js";
import { TmuxPane } from "./support/tmux-pane.js";

/** Screens captured by the tmux tests, kept for reviewers. */
const fixtures = join(import.meta.dirname, "fixtures");

/** A captured screen as a fixture: ids and counted seconds made stable. */
function screenText(screen: string): string {
  return `${screen
    .replace(/[0-9a-f-]{36}/g, "<session id>")
    .replace(/… \d+ s/g, "… N s")
    .replace(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /gm, "⠋ ")
    .trimEnd()}\n`;
}

/** The session id `skein run` printed on stderr. */
function sessionIdOf(stderr: string): string {
  const match = /session ([0-9a-f-]{36})/.exec(stderr);
  if (match === null) throw new Error(`no session id on stderr: ${stderr}`);
  return match[1]!;
}

describe("skein run", () => {
  const shared = useCliDaemon();

  const previews = async (): Promise<string[]> =>
    (await shared.daemon.api("/sessions"))
      .json<{ items: Array<{ preview: { text: string } }> }>()
      .items.map((item) => item.preview.text);

  beforeEach(() => {
    shared.provider.reset();
    shared.provider.script = () => text("The answer is 42.");
  });

  it("prints the answer on stdout and exits 0", async () => {
    const result = await shared.cli.run(["run", "what is the answer?"]);
    expect(result.stderr).toMatch(/^new session [0-9a-f-]{36}\n$/);
    expect(result.stdout).toBe("The answer is 42.\n");
    expect(result.code).toBe(0);
    const body = shared.provider.lastRequest.body as { messages: Array<{ role: string; content: unknown }> };
    expect(JSON.stringify(body.messages)).toContain("what is the answer?");
  });

  it("creates a session with the model options given, and changes an existing one with them", async () => {
    const created = await shared.cli.run(["run", "--max-tokens", "77", "--temperature", "0.5", "first"]);
    expect(created.code).toBe(0);
    expect(shared.provider.lastRequest.body).toMatchObject({ max_tokens: 77, temperature: 0.5 });
    const id = (await shared.daemon.api("/sessions"))
      .json<{ items: Array<{ id: string; preview: { text: string } }> }>()
      .items.find((item) => item.preview.text === "first")!.id;
    const changed = await shared.cli.run(["run", "--session", id, "--model", "another-model", "second"]);
    expect(changed.code).toBe(0);
    expect(shared.provider.lastRequest.body).toMatchObject({
      model: "another-model",
      max_tokens: 77,
      temperature: 0.5,
    });
    const refused = await shared.cli.run(["run", "--effort", "extreme", "third"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/minimal, low, medium, high, xhigh/);
  });

  it("creates each new session in the current directory", async () => {
    await shared.cli.run(["run", "where am I?"]);
    const sessions = (await shared.daemon.api("/sessions")).json<{
      items: Array<{ workspace: string; preview: { text: string } }>;
    }>();
    const session = sessions.items.find((item) => item.preview.text === "where am I?");
    expect(session?.workspace).toBe(shared.cli.workspace);
  });

  it("reads the prompt from stdin when it is -", async () => {
    const result = await shared.cli.run(["run", "-"], { input: "a prompt from a pipe\n" });
    expect(result.code).toBe(0);
    expect(JSON.stringify(shared.provider.lastRequest.body)).toContain("a prompt from a pipe");
  });

  it("prints the stream events as NDJSON with --json", async () => {
    shared.provider.script = () => reasoning("let me think", text("forty-two"));
    const result = await shared.cli.run(["run", "--json", "think first"]);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    const types = events.map((event) => event.type);
    expect(types).toContain("input");
    expect(types).toContain("thinking");
    expect(types).toContain("text");
    expect(types).toContain("message");
    expect(types.at(-3)).toBe("turn_completed");
    expect(types.at(-1)).toBe("result");
    const streamed = events
      .filter((event) => event.type === "text")
      .map((event) => event.data.text)
      .join("");
    expect(streamed).toBe("forty-two");
    expect(events.find((event) => event.type === "turn_completed")?.data.state).toBe("completed");
  });

  it("runs a tool-using turn: the tool's effect lands in the workspace and the call is shown on stderr", async () => {
    shared.provider.queue(
      toolCalls(
        [{ name: "write_file", args: { path: "notes/hello.txt", content: "hello from the agent\n" } }],
        {
          text: "Writing the file.",
        },
      ),
      text("Done: notes/hello.txt is written."),
    );
    const result = await shared.cli.run(["run", "write a greeting to notes/hello.txt"]);
    expect(result.code).toBe(0);
    expect(readFileSync(join(shared.cli.workspace, "notes/hello.txt"), "utf8")).toBe(
      "hello from the agent\n",
    );
    expect(result.stdout).toBe("Writing the file.\nDone: notes/hello.txt is written.\n");
    expect(result.stderr).toMatch(/⚙ write_file notes\/hello\.txt → created notes\/hello\.txt/);
    expect(result.stderr.match(/⚙ write_file/g)).toHaveLength(1);
    // The second request carried the tool result back to the model.
    expect(JSON.stringify(shared.provider.requests[1]?.body)).toContain("created notes/hello.txt");
  });

  it("continues an existing session given by an id prefix", async () => {
    const first = await shared.cli.run(["run", "--json", "remember the word pineapple"]);
    const sessionId = (
      JSON.parse(first.stdout.split("\n")[0]!) as { data: { input: { session_id: string } } }
    ).data.input.session_id;
    shared.provider.script = () => text("You said pineapple.");
    const second = await shared.cli.run(["run", "--session", sessionId.slice(0, 20), "what word?"]);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe("You said pineapple.\n");
    const history = JSON.stringify(shared.provider.lastRequest.body);
    expect(history).toContain("remember the word pineapple");
    expect(history).toContain("what word?");
  });

  it("fails with exit 1 and the provider's error on stderr when the provider refuses", async () => {
    shared.provider.script = () => httpError(400, { message: "this model does not exist" });
    const result = await shared.cli.run(["run", "hi, refused"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("this model does not exist");
    expect(result.stderr).toContain("skein config test");
    // The one-off session holds nothing worth keeping: it is deleted again, and it says so.
    expect(result.stderr).toMatch(
      /removed session [0-9a-f-]{36} \(its turn failed before the model answered\)/,
    );
    expect(await previews()).not.toContain("hi, refused");
  });

  it("keeps a failed turn's session when it was given with --session", async () => {
    const first = await shared.cli.run(["run", "keep me"]);
    const id = sessionIdOf(first.stderr);
    shared.provider.script = () => httpError(400, { message: "nope" });
    const failed = await shared.cli.run(["run", "--session", id, "then fail"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toContain("removed session");
    expect(await previews()).toContain("keep me");
  });

  it('treats `skein "prompt"` as `skein run "prompt"`, and refuses a mistyped command', async () => {
    const result = await shared.cli.run(["what is the answer, short form?"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe("The answer is 42.\n");
    expect(JSON.stringify(shared.provider.lastRequest.body)).toContain("what is the answer, short form?");
    const oneWord = await shared.cli.run(["hello", "--json"]);
    expect(oneWord.code).toBe(0);
    expect(oneWord.stdout.trim().split("\n").at(-1)).toContain('"type":"result"');
    const typo = await shared.cli.run(["sesions"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown command "sesions"; did you mean "sessions"?');
  });

  it("prints the session id on stderr and continues this directory's latest session with -c", async () => {
    const first = await shared.cli.run(["run", "remember the word mango"]);
    const id = sessionIdOf(first.stderr);
    expect(first.stderr).toContain(`new session ${id}`);
    shared.provider.script = () => text("You said mango.");
    const second = await shared.cli.run(["run", "-c", "what word?"]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe(`session ${id}\n`);
    expect(JSON.stringify(shared.provider.lastRequest.body)).toContain("remember the word mango");
    const both = await shared.cli.run(["run", "-c", "--session", id, "x"]);
    expect(both.code).toBe(2);
  });

  it("ends --json with one result line: session, status, text, usage and exit reason", async () => {
    shared.provider.queue(
      toolCalls([{ name: "read_file", args: { path: "missing.txt" } }], { text: "Looking." }),
      text("There is no such file."),
    );
    const result = await shared.cli.run(["run", "--json", "read missing.txt"]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    expect(Object.keys(last).slice(0, 6)).toEqual([
      "type",
      "session_id",
      "status",
      "text",
      "usage",
      "exit_reason",
    ]);
    expect(last).toMatchObject({
      type: "result",
      session_id: sessionIdOf(result.stderr),
      status: "completed",
      text: "There is no such file.",
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
      exit_reason: "finished",
      exit_code: 0,
      session_removed: false,
    });
    shared.provider.script = () => httpError(400, { message: "bad model" });
    const failed = await shared.cli.run(["run", "--json", "fail please"]);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      type: "result",
      status: "failed",
      text: "",
      exit_code: 1,
      session_removed: true,
      errors: [{ message: expect.stringContaining("bad model") }],
    });
  });

  it("deletes the session afterwards with --ephemeral, and refuses it with --session", async () => {
    const result = await shared.cli.run(["run", "--ephemeral", "--json", "leave no trace"]);
    expect(result.code, result.stderr).toBe(0);
    const last = JSON.parse(result.stdout.trim().split("\n").at(-1)!) as {
      session_id: string;
      session_removed: boolean;
    };
    expect(last.session_removed).toBe(true);
    expect(await previews()).not.toContain("leave no trace");
    expect((await shared.daemon.api(`/sessions/${last.session_id}`)).status).toBe(404);
    const refused = await shared.cli.run(["run", "--ephemeral", "--session", last.session_id, "x"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--ephemeral");
  });

  it("interrupts the turn in the daemon when the reader of stdout goes away, like `skein run … | head`", async () => {
    shared.provider.script = () => deliver(deltas(400, "tick "), { delayMs: 25 });
    const live = shared.cli.spawn(["run", "--ephemeral", "tick forever"]);
    await eventually(
      () => live.stdout().includes("tick tick"),
      () => `no output yet: ${live.stdout()} ${live.stderr()}`,
    );
    live.child.stdout?.destroy();
    const result = await live.exited;
    expect(result.stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(shared.provider.lastRequest.clientAborted).toBe(true);
    // --ephemeral: the interrupted session is deleted too.
    let listed = await previews();
    for (let i = 0; i < 100 && listed.includes("tick forever"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      listed = await previews();
    }
    expect(listed).not.toContain("tick forever");
  });

  it("interrupts the turn on Ctrl-C (SIGINT) and exits 130", async () => {
    shared.provider.script = () => deliver(deltas(400, "tock "), { delayMs: 25 });
    const live = shared.cli.spawn(["run", "count slowly"]);
    await eventually(
      () => live.stdout().includes("tock tock"),
      () => `no output yet: ${live.stdout()} ${live.stderr()}`,
    );
    live.child.kill("SIGINT");
    const result = await live.exited;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("the turn was interrupted");
    expect(shared.provider.lastRequest.clientAborted).toBe(true);
    const sessions = (await shared.daemon.api("/sessions")).json<{
      items: Array<{ status: { phase: string }; preview: { text: string } }>;
    }>();
    expect(sessions.items.find((item) => item.preview.text === "count slowly")?.status.phase).toBe("idle");
  });

  it("refuses to start a session in the filesystem root, and says why and what to do", async () => {
    const before = (await previews()).length;
    const result = await shared.cli.run(["run", "hi from the root"], { cwd: "/" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("skein: the filesystem root cannot be a workspace");
    expect(result.stderr).toContain("hint: a session works in a project folder: cd into one");
    expect(result.stderr).not.toMatch(/reconnected|turn failed/);
    expect((await previews()).length).toBe(before);
  });

  it("shows `waiting for the model… N s` on a terminal while the provider says nothing", async () => {
    shared.provider.script = () => hang();
    mkdirSync(fixtures, { recursive: true });
    const pane = TmuxPane.start([process.execPath, skeinBin, "run", "are you there?"], {
      cwd: shared.cli.workspace,
      env: { ...shared.cli.env, TERM: "xterm" },
    });
    try {
      await eventually(
        () => /waiting for the model… [2-9] s/.test(pane.capture()),
        () => pane.capture(),
      );
      writeFileSync(join(fixtures, "run-waiting.txt"), screenText(pane.capture()));
      pane.press("C-c");
      await eventually(
        () => pane.capture().includes("[exit 130]"),
        () => pane.capture(),
      );
      // The line was cleared before the interrupt notice: no half-drawn spinner is left behind.
      writeFileSync(join(fixtures, "run-waiting-interrupted.txt"), screenText(pane.capture()));
      expect(pane.capture()).toMatch(/^new session [0-9a-f-]{36}\n\s*\ninterrupting…/m);
    } finally {
      pane.close();
    }
  }, 30_000);

  it("rejects an unknown session with exit 4", async () => {
    const result = await shared.cli.run(["run", "--session", "ffffffff", "hi"]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('no session matches "ffffffff"');
  });

  it("answers prompts piped into `skein` one after another, in one session", async () => {
    let n = 0;
    shared.provider.script = () => text(`Answer number ${++n}.`);
    const result = await shared.cli.run([], { input: "first question\nsecond question\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /› first question\nAnswer number 1\.\n── fake-model .*\n› second question\nAnswer number 2\.\n/,
    );
    // The second request carries the first exchange: both went to the same session.
    expect(JSON.stringify(shared.provider.lastRequest.body)).toContain("Answer number 1.");
  });

  it("rejects an empty prompt and a missing one as usage errors (exit 2)", async () => {
    expect((await shared.cli.run(["run", "   "])).code).toBe(2);
    const missing = await shared.cli.run(["run"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument");
  });
});

describe("skein run without a usable provider", () => {
  it("says that no provider is configured and how to add one (exit 1)", async () => {
    const daemon = await DaemonHarness.start();
    try {
      const cli = new CliSandbox({ root: daemon.root, home: daemon.home, env: { SKEIN_NO_AUTOSTART: "1" } });
      const result = await cli.run(["run", "hi"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("no provider is configured");
      expect(result.stderr).toContain("skein config add");
    } finally {
      await daemon.close();
    }
  });

  it("reports a provider that is down (exit 1)", async () => {
    const gone = await FakeProvider.start();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const daemon = await DaemonHarness.start({ providers: { down: fakeProfile(baseUrl) as never } });
    try {
      const cli = new CliSandbox({ root: daemon.root, home: daemon.home, env: { SKEIN_NO_AUTOSTART: "1" } });
      const result = await cli.run(["run", "hi"], { timeoutMs: 30_000 });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/ECONNREFUSED|connect|network/i);
    } finally {
      await daemon.close();
    }
  }, 40_000);

  it("exits 3 when no daemon runs and auto-start is off", async () => {
    const cli = new CliSandbox({ env: { SKEIN_NO_AUTOSTART: "1" } });
    try {
      const result = await cli.run(["sessions"]);
      expect(result.code).toBe(3);
      expect(result.stderr).toContain("no daemon is running");
      expect(result.stderr).toContain("skein daemon start");
    } finally {
      await cli.cleanup();
    }
  });
});
