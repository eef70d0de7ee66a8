/**
 * `skein` / `skein chat`: talk to an agent whose workspace is the current directory.
 *
 * Boundary rule: the conversation loop only: read a prompt, send it as an input, let the
 * watcher and view show the turn, print a status line. Keys: Ctrl-C interrupts a running turn
 * (twice: quit at once); at the prompt Ctrl-C clears the line, and on an empty line a second
 * Ctrl-C (or one right after an interrupted turn) exits; Ctrl-D exits. Reconnecting after a
 * lost connection or a daemon restart is the watcher's job and needs nothing from here.
 */
import type { InputReceipt } from "../../api/inputs.js";
import type { ShellInfo } from "../../api/server.js";
import type { SessionSnapshot } from "../../api/session-snapshot.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import { ChatApprovals } from "../chat-approvals.js";
import { type CliContext, connectWithServer } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { historyPath } from "../line-editor/prompt-history.js";
import { attachMentions } from "../prompt-mentions.js";
import { PromptReader } from "../prompt-reader.js";
import { osc52Copy } from "../render/clipboard.js";
import { sessionTable } from "../render/session-table.js";
import { writeShellWarning } from "../render/shell-warning.js";
import { Spinner } from "../render/spinner.js";
import { type OutputStream, wantsColor, writeLine } from "../render/terminal.js";
import { TranscriptView } from "../render/transcript-view.js";
import { TurnStatus } from "../render/turn-status.js";
import { resolveSessionId } from "../session-ref.js";
import {
  describeSettings,
  type ModelOptions,
  newSessionSettings,
  settingsPatch,
  slashSettingsPatch,
} from "../session-settings-options.js";
import { SessionWatcher, type TurnOutcome } from "../session-watcher.js";
import { workspaceTextReader } from "../workspace-text.js";
import { undoTurnLines } from "./checkpoints.js";
import { latestCheckpoint } from "./fork.js";

export interface ChatOptions extends ModelOptions {
  session?: string;
  /** Resume the most recently active session of this workspace. */
  continue?: boolean;
  hideThinking?: boolean;
  name?: string;
}

/** The slash commands, as completed by Tab and listed by /help. */
const slashCommands: readonly (readonly [string, string])[] = [
  ["/help", "this list"],
  ["/new", "start a new session in this workspace (this one stays)"],
  ["/sessions", "the sessions of this workspace"],
  ["/fork", "continue in a copy of this session (this one stays as it is)"],
  ["/model", "/model NAME (or default): the model from the next turn on"],
  ["/effort", "/effort minimal|low|medium|high|xhigh|default: how hard the model thinks"],
  ["/compact", "summarize older messages so the context is smaller (the history stays)"],
  ["/undo", "put the workspace back to before the latest turn that called tools"],
  ["/copy", "copy the last answer to the clipboard (OSC 52, through ssh and tmux too)"],
  ["/thinking", "show or hide the model's thinking"],
  ["/status", "session, model and token usage"],
  ["/id", "print the session id"],
  ["/exit", "leave (Ctrl-D works too); the session stays and can be resumed with --session"],
];

const helpText = [
  ...slashCommands.map(([name, text]) => `${name.padEnd(10)} ${text}`),
  "Enter sends; Alt-Enter, Shift-Enter (where the terminal reports it), Ctrl-J or \\ at the end of a line: newline.",
  "Up/Down: earlier prompts (kept per workspace); Ctrl-R searches them; Tab completes /commands and @paths.",
  "@path attaches a workspace file. Typing during a turn queues the next prompt.",
  "Ctrl-C interrupts a running turn; Ctrl-C twice on an empty prompt exits.",
];

/** How one session's chat ended: leave with a code, or go on in another session. */
type ChatEnd = { kind: "exit"; code: ExitCode } | { kind: "switch"; sessionId: string };

/** Run an interactive chat; resolves with the exit code. */
export async function chat(context: CliContext, options: ChatOptions): Promise<ExitCode> {
  const { client, server } = await connectWithServer(context);
  const out = context.terminal.out;
  const interactive = context.stdin.isTTY === true && out.tty;
  const reader = new PromptReader({
    input: context.stdin,
    output: process.stdout,
    interactive,
    historyFile: interactive ? historyPath(context.home, context.cwd) : null,
    completion: { commands: slashCommands.map(([name]) => name), workspace: context.cwd },
    paint: out.paint,
  });
  try {
    let opened = await openSession(client, context, options);
    for (;;) {
      const end = await chatInSession(client, server.shell, context, options, reader, opened);
      if (end.kind === "exit") return end.code;
      opened = { snapshot: await client.getSession(end.sessionId, 0), created: true };
    }
  } finally {
    reader.close();
    client.close();
  }
}

/** The chat in one session, until it exits or switches to another session (/new, /fork). */
async function chatInSession(
  client: DaemonClient,
  shell: ShellInfo | undefined,
  context: CliContext,
  options: ChatOptions,
  reader: PromptReader,
  { snapshot, created }: { snapshot: SessionSnapshot; created: boolean },
): Promise<ChatEnd> {
  const out = context.terminal.out;
  let watcher: SessionWatcher | null = null;
  let usage = (): string | null => null;
  const status = new TurnStatus(reader, () => usage());
  try {
    const view = new TranscriptView({
      text: out,
      aside: out,
      showThinking: options.hideThinking !== true,
      showUserEntries: true,
      markdown: out.tty && wantsColor(out.tty, context.env),
      collapseThinking: true,
      readWorkspaceFile: workspaceTextReader(snapshot.workspace),
      // The status line lives above the prompt; without one (stdin piped), a spinner on a terminal.
      spinner: reader.interactive ? status : new Spinner(out, context.env),
      surroundWrites: {
        before: () => reader.beforeOutput(),
        after: (lineOpen, plain) => {
          status.activity();
          reader.afterOutput(lineOpen, plain);
        },
      },
    });
    const approvals = new ChatApprovals({
      client,
      sessionId: snapshot.id,
      workspace: snapshot.workspace,
      out,
      print: (line) => view.line(line),
      reader,
      stdin: context.stdin,
      stdout: process.stdout,
    });
    const active = new SessionWatcher(client, snapshot.id, view, {
      after: created ? snapshot.cursor : null,
      tail: 10,
      initialHistory: "render",
      onBatch: (batch) => {
        // Attached while a run streams: its message in flight lost its start (shown once committed).
        if (batch.reset?.reason === "initial") view.joinedDuring(batch.reset.snapshot.status.run_id);
        approvals.pending.observe(batch);
      },
    });
    watcher = active;
    usage = () =>
      active.sessionUsage.total > 0 ? `${compactCount(active.sessionUsage.total)} tokens` : null;
    active.seed(snapshot);
    writeLine(out, header(out, snapshot, created));
    // A session whose agent cannot run commands says so before the first prompt (the daemon's
    // shell as connecting found it: it is fixed while the daemon runs, so not asked again).
    if (shell?.mode === "off") writeShellWarning(out, shell);
    active.start();
    await active.connected();
    const session = new ChatSession(
      client,
      context,
      snapshot.id,
      active,
      view,
      reader,
      out,
      status,
      approvals,
    );
    return await session.loop();
  } finally {
    status.end();
    await watcher?.stop();
  }
}

/** 1234 → "1.2k". */
function compactCount(count: number): string {
  return count < 1000 ? String(count) : `${(count / 1000).toFixed(1)}k`;
}

async function openSession(
  client: DaemonClient,
  context: CliContext,
  options: ChatOptions,
): Promise<{ snapshot: SessionSnapshot; created: boolean }> {
  if (options.session !== undefined) {
    const id = await resolveSessionId(client, options.session);
    return { snapshot: await existing(client, id, options), created: false };
  }
  if (options.continue === true) {
    const latest = (await client.listSessions()).find((session) => session.workspace === context.cwd);
    if (latest !== undefined) return { snapshot: await existing(client, latest.id, options), created: false };
  }
  const snapshot = await client.createSession(uuidV7(), {
    workspace: context.cwd,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...newSessionSettings(options),
  });
  return { snapshot, created: true };
}

/** An existing session, changed first when the options ask for another model or parameters. */
async function existing(client: DaemonClient, id: string, options: ChatOptions): Promise<SessionSnapshot> {
  const patch = settingsPatch(options);
  if (patch !== null) await client.updateSettings(id, patch);
  return client.getSession(id, 0);
}

function header(out: OutputStream, snapshot: SessionSnapshot, created: boolean): string {
  const paint = out.paint;
  const model =
    snapshot.model === null
      ? paint.yellow("no provider configured (see skein config --help)")
      : `${snapshot.model}${snapshot.provider_profile === null ? "" : ` (${snapshot.provider_profile})`}`;
  return paint.dim(
    `${created ? "new session" : "session"} ${snapshot.id} · ${model} · ${snapshot.workspace}\n` +
      "Type /help for commands. Ctrl-C interrupts, Ctrl-D exits.",
  );
}

/** The prompt loop of one chat. */
class ChatSession {
  /** A Ctrl-C that exits if the next key is Ctrl-C again. */
  #armed = false;

  /** Prompts typed during a turn: slash commands wait here; messages were sent (the daemon queues them). */
  readonly #ahead: (
    | { kind: "command"; text: string }
    | { kind: "sent"; text: string; inputId: string; receipt: Promise<InputReceipt | null> }
  )[] = [];

  constructor(
    private readonly client: DaemonClient,
    private readonly context: CliContext,
    private readonly sessionId: string,
    private readonly watcher: SessionWatcher,
    private readonly view: TranscriptView,
    private readonly reader: PromptReader,
    private readonly out: OutputStream,
    private readonly status: TurnStatus,
    private readonly approvals: ChatApprovals,
  ) {}

  get #prompt(): string {
    return this.reader.interactive ? `${this.out.paint.bold(this.out.paint.cyan("›"))} ` : "";
  }

  async loop(): Promise<ChatEnd> {
    for (;;) {
      const ahead = this.#ahead.shift();
      this.#showQueue();
      if (ahead?.kind === "sent") {
        // Its answer comes next: show the prompt above it, as if typed now.
        const mark = this.out.paint.bold(this.out.paint.cyan("›"));
        this.view.line(`${mark} ${ahead.text.trim().split("\n").join("\n  ")}`);
        this.view.resume();
        const outcome = await this.#turn({ inputId: ahead.inputId, receipt: ahead.receipt });
        if (outcome === "forced") return { kind: "exit", code: exitCodes.interrupted };
        continue;
      }
      // Paused since the last turn's footer (see #turn): what streams from now on is shown.
      this.view.resume();
      let text: string;
      if (ahead?.kind === "command") {
        text = ahead.text;
      } else {
        // Calls that wait from before (another client's turn, a restart): answer them first.
        await this.approvals.answerWaiting(() => this.#interruptRunning());
        const result = await this.reader.read(this.#prompt);
        if (result.kind === "eof") {
          if (this.reader.interactive) writeLine(this.out);
          return { kind: "exit", code: exitCodes.ok };
        }
        if (result.kind === "interrupt") {
          if (this.#armed) return { kind: "exit", code: exitCodes.interrupted };
          this.#armed = true;
          this.view.notice("(press Ctrl-C again to exit, or Ctrl-D)");
          continue;
        }
        this.#armed = false;
        text = result.text;
      }
      const trimmed = text.trim();
      if (trimmed === "") continue;
      if (trimmed.startsWith("/")) {
        const done = await this.#command(trimmed);
        if (done !== "continue") return done;
        continue;
      }
      if (!this.reader.interactive)
        writeLine(this.out, `${this.out.paint.bold(this.out.paint.cyan("›"))} ${trimmed}`);
      const outcome = await this.#turn(this.#send(text));
      if (outcome === "forced") return { kind: "exit", code: exitCodes.interrupted };
      if (outcome.state === "interrupted" || outcome.state === "cancelled") this.#armed = true;
    }
  }

  /** Send a prompt as an input (files it mentions attached); the receipt resolves once admitted. */
  #send(text: string): { inputId: string; receipt: Promise<InputReceipt | null> } {
    const inputId = uuidV7();
    this.view.markOwnInput(inputId);
    const mentions = attachMentions(text, this.context.cwd);
    for (const note of mentions.notes) this.view.notice(note);
    const receipt = this.client
      .putInput(this.sessionId, inputId, { kind: "message", text: mentions.text })
      .then((admitted) => {
        this.watcher.noteReceipt(admitted);
        return admitted;
      })
      .catch((error: unknown) => {
        this.view.notice(`not sent: ${error instanceof Error ? error.message : String(error)}`);
        return null;
      });
    return { inputId, receipt };
  }

  /** A prompt typed (and sent with Enter) while a turn runs. */
  #typedAhead(text: string): void {
    const trimmed = text.trim();
    if (trimmed === "") return;
    if (trimmed.startsWith("/")) this.#ahead.push({ kind: "command", text: trimmed });
    else this.#ahead.push({ kind: "sent", text, ...this.#send(text) });
    this.#showQueue();
  }

  /** The queued prompts, as dim lines above the prompt (not in the answer streaming above). */
  #showQueue(): void {
    this.reader.setNotes(
      this.#ahead.map((ahead) => {
        if (ahead.kind === "command" && ahead.text === "/exit")
          return "exits when the turn ends (Ctrl-C interrupts it)";
        const text = ahead.text.trim();
        const firstLine = text.split("\n")[0]!;
        const shown = `${firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine}${text.includes("\n") ? " …" : ""}`;
        return ahead.kind === "command" ? `queued: ${shown} (runs when the turn ends)` : `queued: ${shown}`;
      }),
    );
  }

  async #turn(sent: {
    inputId: string;
    receipt: Promise<InputReceipt | null>;
  }): Promise<TurnOutcome | "forced"> {
    const { inputId } = sent;
    let receipt: InputReceipt | null = null;
    let interrupts = 0;
    let force: (value: "forced") => void = () => {};
    const forced = new Promise<"forced">((resolve) => {
      force = resolve;
    });
    const interrupt = (admitted: InputReceipt): void => {
      const runId = this.watcher.runOf(inputId);
      // Before its run is known, cancelling the input itself is exact: a queued input is dropped,
      // and the turn it alone started is interrupted.
      const request =
        runId === null
          ? this.client.cancelInput(this.sessionId, inputId)
          : this.client.interrupt(this.sessionId, runId, admitted.acceptance_order);
      request.catch((error: unknown) =>
        this.view.notice(`interrupt failed: ${error instanceof Error ? error.message : String(error)}`),
      );
    };
    const onCtrlC = (): void => {
      interrupts += 1;
      if (interrupts > 1) {
        force("forced");
        return;
      }
      this.view.notice("interrupting… (Ctrl-C again to quit)");
      this.status.start("interrupting…");
      // Before the input is admitted there is nothing to interrupt yet; it is done on admission.
      if (receipt !== null) interrupt(receipt);
    };
    // From the moment the prompt is sent, Ctrl-C interrupts the turn; it must never fall through
    // to the default handler (which would kill the CLI) while the terminal is not yet raw.
    process.on("SIGINT", onCtrlC);
    if (this.reader.takePendingCtrlC()) onCtrlC();
    try {
      // Approvals are asked inline; each question takes the keys from the turn's capture.
      const keys = this.approvals.duringTurn(
        () =>
          this.reader.captureKeys(
            onCtrlC,
            (typed) => this.#typedAhead(typed),
            this.#prompt,
            () => this.#typedAhead("/exit"),
          ),
        onCtrlC,
      );
      this.status.begin();
      if (interrupts > 0) this.status.start("interrupting…");
      let outcome: TurnOutcome | "forced";
      try {
        const admitted = await sent.receipt;
        if (admitted === null) return { runId: null, state: "failed", errors: [] };
        receipt = admitted;
        if (interrupts > 0) interrupt(admitted);
        if (admitted.delivery === "pending" && this.watcher.status.phase !== "idle") {
          this.status.start("queued behind the running turn…");
        }
        outcome = await Promise.race([this.watcher.waitForInput(inputId), forced]);
      } finally {
        await keys.desk.stop();
        keys.release();
        this.status.end();
      }
      this.view.finish();
      if (outcome !== "forced") {
        // A prompt queued in the daemon starts its turn at once and may stream before this
        // footer (which awaits a snapshot) and its own echo are written: its events wait for
        // the loop to resume the view.
        this.view.pause();
        await this.#status(outcome);
      }
      return outcome;
    } finally {
      process.off("SIGINT", onCtrlC);
    }
  }

  /** Interrupt whatever turn runs now (one this chat did not start). */
  #interruptRunning(): void {
    const runId = this.watcher.status.run_id;
    if (runId === null) return;
    this.view.notice("interrupting the waiting turn…");
    this.client
      .interrupt(this.sessionId, runId, 0)
      .catch((error: unknown) =>
        this.view.notice(`interrupt failed: ${error instanceof Error ? error.message : String(error)}`),
      );
  }

  async #status(outcome: TurnOutcome): Promise<void> {
    const paint = this.out.paint;
    const usage = this.watcher.usageOf(outcome.runId);
    const parts: string[] = [];
    if (outcome.state === "interrupted" || outcome.state === "cancelled")
      parts.push(paint.yellow("interrupted"));
    else if (outcome.state === "failed") parts.push(paint.red("turn failed"));
    else if (outcome.state === "abandoned") parts.push(paint.yellow("turn cut short by a daemon restart"));
    parts.push(this.watcher.model ?? "no model");
    if (usage.total > 0) parts.push(`${usage.prompt} in / ${usage.completion} out`);
    parts.push(`session ${this.watcher.sessionUsage.total} tokens`);
    const context = await this.client
      .getSession(this.sessionId, 0)
      .then((snapshot) => snapshot.context)
      .catch(() => null);
    if (context !== null && context.context_window > 0) {
      const percent = Math.round((context.used_tokens / context.context_window) * 100);
      parts.push(`context ${percent}% of ${Math.round(context.context_window / 1000)}k`);
    }
    writeLine(this.out, paint.dim(`── ${parts.join(" · ")}`));
  }

  async #command(text: string): Promise<ChatEnd | "continue"> {
    const [command] = text.split(/\s+/, 1);
    const failed = (error: unknown): void =>
      this.view.notice(error instanceof Error ? error.message : String(error));
    switch (command) {
      case "/exit":
      case "/quit":
        return { kind: "exit", code: exitCodes.ok };
      case "/new": {
        const snapshot = await this.client.createSession(uuidV7(), { workspace: this.context.cwd });
        this.view.notice(
          `left session ${this.sessionId} (resume it with skein chat --session ${this.sessionId.slice(0, 13)})`,
        );
        return { kind: "switch", sessionId: snapshot.id };
      }
      case "/fork": {
        try {
          const checkpoint = await latestCheckpoint(this.client, this.sessionId);
          const snapshot = await this.client.forkSession(uuidV7(), {
            source_session_id: this.sessionId,
            checkpoint_id: checkpoint,
          });
          this.view.notice(`forked ${this.sessionId}; the original stays as it is`);
          return { kind: "switch", sessionId: snapshot.id };
        } catch (error) {
          failed(error);
          return "continue";
        }
      }
      case "/sessions": {
        const sessions = (await this.client.listSessions()).filter(
          (session) => session.workspace === this.context.cwd,
        );
        if (sessions.length === 0) this.view.notice("no sessions in this workspace");
        for (const line of sessionTable(sessions, this.out)) {
          this.view.line(line);
        }
        this.view.notice("resume one with: skein chat --session ID");
        return "continue";
      }
      case "/copy": {
        const answer = this.view.lastAnswer;
        if (answer === "") {
          this.view.notice("no answer to copy yet");
          return "continue";
        }
        process.stdout.write(osc52Copy(answer, this.context.env));
        this.view.notice(`copied the last answer (${answer.length} characters) to the clipboard`);
        return "continue";
      }
      case "/thinking":
        this.view.showThinking = !this.view.showThinking;
        this.view.notice(`thinking is ${this.view.showThinking ? "shown" : "hidden"}`);
        return "continue";
      case "/status": {
        const usage = this.watcher.sessionUsage;
        this.view.notice(
          `session ${this.sessionId} · ${this.watcher.model ?? "no model"} · ${this.watcher.status.phase} · ` +
            `${usage.total} tokens (${usage.prompt} in, ${usage.completion} out, ${usage.cached} cached)`,
        );
        return "continue";
      }
      case "/id":
        this.view.line(this.sessionId);
        return "continue";
      case "/model":
      case "/effort": {
        const patch = slashSettingsPatch(command, text.split(/\s+/)[1]);
        if (typeof patch === "string") {
          this.view.notice(patch);
          return "continue";
        }
        this.client
          .updateSettings(this.sessionId, patch)
          .then((settings) => this.view.notice(`from the next turn on: ${describeSettings(settings)}`))
          .catch(failed);
        return "continue";
      }
      case "/undo":
        try {
          for (const line of await undoTurnLines(this.context, this.sessionId, {})) this.view.line(line);
        } catch (error) {
          // A CliError's hint says what to do (interrupt a running turn first, say).
          failed(error);
          if (error instanceof CliError && error.hint !== undefined) this.view.notice(error.hint);
        }
        return "continue";
      case "/compact":
        // Started, completed and failed show as stream notices and the history's compaction line.
        this.client.compact(this.sessionId).catch(failed);
        return "continue";
      case "/help":
        for (const line of helpText) this.view.notice(line);
        return "continue";
      default:
        this.view.notice(`unknown command ${command}; /help lists them`);
        return "continue";
    }
  }
}
