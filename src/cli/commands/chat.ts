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
import type { SessionSnapshot } from "../../api/session-snapshot.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import { ChatApprovals } from "../chat-approvals.js";
import { type CliContext, connect } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { PromptReader } from "../prompt-reader.js";
import { Spinner } from "../render/spinner.js";
import { type OutputStream, writeLine } from "../render/terminal.js";
import { TranscriptView } from "../render/transcript-view.js";
import { resolveSessionId } from "../session-ref.js";
import {
  describeSettings,
  type ModelOptions,
  newSessionSettings,
  settingsPatch,
  slashSettingsPatch,
} from "../session-settings-options.js";
import { SessionWatcher, type TurnOutcome } from "../session-watcher.js";

export interface ChatOptions extends ModelOptions {
  session?: string;
  /** Resume the most recently active session of this workspace. */
  continue?: boolean;
  hideThinking?: boolean;
  name?: string;
}

const helpText = [
  "/thinking  show or hide the model's thinking",
  "/status    session, model and token usage",
  "/model     /model NAME (or default): the model from the next turn on",
  "/effort    /effort minimal|low|medium|high|xhigh|default: how hard the model thinks",
  "/compact   summarize older messages so the context is smaller (the history stays)",
  "/id        print the session id",
  "/exit      leave (Ctrl-D works too); the session stays and can be resumed with --session",
  "Ctrl-C interrupts a running turn; Ctrl-C twice on an empty prompt exits.",
];

/** Run an interactive chat; resolves with the exit code. */
export async function chat(context: CliContext, options: ChatOptions): Promise<ExitCode> {
  const client = await connect(context);
  const out = context.terminal.out;
  const spinner = new Spinner(out, context.env);
  const reader = new PromptReader(context.stdin, process.stdout, context.stdin.isTTY === true && out.tty);
  let watcher: SessionWatcher | null = null;
  try {
    const { snapshot, created } = await openSession(client, context, options);
    const view = new TranscriptView({
      text: out,
      aside: out,
      showThinking: options.hideThinking !== true,
      showUserEntries: true,
      spinner,
      surroundWrites: {
        before: () => reader.beforeOutput(),
        after: (lineOpen) => reader.afterOutput(lineOpen),
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
    active.seed(snapshot);
    writeLine(out, header(out, snapshot, created));
    active.start();
    await active.connected();
    const session = new ChatSession(client, snapshot.id, active, view, reader, out, spinner, approvals);
    return await session.loop();
  } finally {
    spinner.stop();
    reader.close();
    await watcher?.stop();
    client.close();
  }
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

  constructor(
    private readonly client: DaemonClient,
    private readonly sessionId: string,
    private readonly watcher: SessionWatcher,
    private readonly view: TranscriptView,
    private readonly reader: PromptReader,
    private readonly out: OutputStream,
    private readonly spinner: Spinner,
    private readonly approvals: ChatApprovals,
  ) {}

  async loop(): Promise<ExitCode> {
    const prompt = this.reader.interactive ? `${this.out.paint.bold(this.out.paint.cyan("›"))} ` : "";
    for (;;) {
      // Calls that wait from before (another client's turn, a restart): answer them first.
      await this.approvals.answerWaiting(() => this.#interruptRunning());
      const result = await this.reader.read(prompt);
      if (result.kind === "eof") {
        if (this.reader.interactive) writeLine(this.out);
        return exitCodes.ok;
      }
      if (result.kind === "interrupt") {
        if (this.#armed) return exitCodes.interrupted;
        this.#armed = true;
        this.view.notice("(press Ctrl-C again to exit, or Ctrl-D)");
        continue;
      }
      this.#armed = false;
      const text = result.text.trim();
      if (text === "") continue;
      if (text.startsWith("/")) {
        if (this.#command(text) === "exit") return exitCodes.ok;
        continue;
      }
      if (!this.reader.interactive)
        writeLine(this.out, `${this.out.paint.bold(this.out.paint.cyan("›"))} ${text}`);
      const outcome = await this.#turn(result.text);
      if (outcome === "forced") return exitCodes.interrupted;
      if (outcome.state === "interrupted" || outcome.state === "cancelled") this.#armed = true;
    }
  }

  async #turn(text: string): Promise<TurnOutcome | "forced"> {
    const inputId = uuidV7();
    this.view.markOwnInput(inputId);
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
      this.spinner.start("interrupting…");
      // Before the input is admitted there is nothing to interrupt yet; it is done on admission.
      if (receipt !== null) interrupt(receipt);
    };
    // From the moment the prompt is sent, Ctrl-C interrupts the turn; it must never fall through
    // to the default handler (which would kill the CLI) while the terminal is not yet raw.
    process.on("SIGINT", onCtrlC);
    if (this.reader.takePendingCtrlC()) onCtrlC();
    try {
      const admitted = await this.client.putInput(this.sessionId, inputId, { kind: "message", text });
      receipt = admitted;
      this.watcher.noteReceipt(admitted);
      if (interrupts > 0) interrupt(admitted);
      if (admitted.delivery === "pending" && this.watcher.status.phase !== "idle") {
        this.view.notice("(queued behind the running turn)");
      }
      if (interrupts === 0) this.spinner.start("thinking…");
      // Approvals are asked inline; each question takes the keys from the turn's capture.
      const keys = this.approvals.duringTurn(() => this.reader.captureKeys(onCtrlC), onCtrlC);
      let outcome: TurnOutcome | "forced";
      try {
        outcome = await Promise.race([this.watcher.waitForInput(inputId), forced]);
      } finally {
        await keys.desk.stop();
        keys.release();
      }
      this.view.finish();
      if (outcome !== "forced") this.#status(outcome);
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

  #status(outcome: TurnOutcome): void {
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
    writeLine(this.out, paint.dim(`── ${parts.join(" · ")}`));
  }

  #command(text: string): "exit" | "continue" {
    const [command] = text.split(/\s+/, 1);
    switch (command) {
      case "/exit":
      case "/quit":
        return "exit";
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
        writeLine(this.out, this.sessionId);
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
          .catch((error: unknown) =>
            this.view.notice(error instanceof Error ? error.message : String(error)),
          );
        return "continue";
      }
      case "/compact":
        // Started, completed and failed show as stream notices and the history's compaction line.
        this.client
          .compact(this.sessionId)
          .catch((error: unknown) =>
            this.view.notice(error instanceof Error ? error.message : String(error)),
          );
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
