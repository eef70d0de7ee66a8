/**
 * The prompt loop of one session's chat: read a prompt, send it as an input, wait for its turn
 * while the watcher and view show it, print the turn's footer; slash commands in between.
 *
 * Boundary rule: the keys around a turn are this loop's (Ctrl-C interrupts the running turn,
 * twice quits at once; typing queues the next prompt); what a turn shows is the view's, and the
 * slash commands are chat-slash-commands.ts's.
 */
import type { InputReceipt } from "../../api/inputs.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import { modeLabel } from "../chat-approval-mode.js";
import type { ChatApprovals } from "../chat-approvals.js";
import type { ChatNotes } from "../chat-notes.js";
import { errorMessage } from "../cli-error.js";
import { exitCodes } from "../exit-codes.js";
import { attachMentions } from "../prompt-mentions.js";
import type { PromptReader } from "../prompt-reader.js";
import { writeLine } from "../render/terminal.js";
import type { TurnStatus } from "../render/turn-status.js";
import type { TurnOutcome } from "../turn-tracker.js";
import type { ChatEnd } from "./chat-end.js";
import { runSlashCommand, type SlashCommandScope } from "./chat-slash-commands.js";
import { turnFooter } from "./chat-turn-footer.js";
import { queueNotes, type TypedAhead } from "./chat-typed-ahead.js";

/** What the loop works with besides what slash commands need: the prompt, the status line, approvals. */
export interface ChatLoopParts extends SlashCommandScope {
  reader: PromptReader;
  status: TurnStatus;
  approvals: ChatApprovals;
  notes: ChatNotes;
}

/** An input sent: its id, and its receipt once admitted (null when it could not be sent). */
interface SentInput {
  inputId: string;
  receipt: Promise<InputReceipt | null>;
}

/** The prompt loop of one chat. */
export class ChatPromptLoop {
  /** A Ctrl-C that exits if the next key is Ctrl-C again. */
  #armed = false;

  /** Prompts typed during a turn: slash commands wait here; messages were sent (the daemon queues them). */
  readonly #ahead: TypedAhead[] = [];

  /** While a turn runs: leave it for another session (`/agents N` typed during it). */
  #leave: ((end: ChatEnd) => void) | null = null;

  constructor(private readonly parts: ChatLoopParts) {}

  /** The mark before a prompt: a bold cyan `›`. */
  get #mark(): string {
    const paint = this.parts.out.paint;
    return paint.bold(paint.cyan("›"));
  }

  get #prompt(): string {
    if (!this.parts.reader.interactive) return "";
    return `${modeLabel(this.parts.out.paint, this.parts.approvalMode.mode)}${this.#mark} `;
  }

  /** Show the prompt again (the approval mode it shows changed). */
  refreshPrompt(): void {
    this.parts.reader.setPrompt(this.#prompt);
  }

  /** Read and run prompts until the chat exits or switches to another session. */
  async loop(): Promise<ChatEnd> {
    const { view, reader, out } = this.parts;
    for (;;) {
      const ahead = this.#ahead.shift();
      this.#showQueue();
      if (ahead?.kind === "sent") {
        // Its answer comes next: show the prompt above it, as if typed now.
        view.line(`${this.#mark} ${ahead.text.trim().split("\n").join("\n  ")}`);
        view.resume();
        const outcome = await this.#turn({ inputId: ahead.inputId, receipt: ahead.receipt });
        if (outcome === "forced") return { kind: "exit", code: exitCodes.interrupted };
        if ("kind" in outcome) return outcome;
        continue;
      }
      // Paused since the last turn's footer (see #turn): what streams from now on is shown.
      view.resume();
      let text: string;
      if (ahead?.kind === "command") {
        text = ahead.text;
      } else {
        // Calls that wait from before (another client's turn, a restart): answer them first.
        await this.parts.approvals.answerWaiting(() => this.#interruptRunning());
        const result = await reader.read(this.#prompt);
        if (result.kind === "eof") {
          if (reader.interactive) writeLine(out);
          return { kind: "exit", code: exitCodes.ok };
        }
        if (result.kind === "interrupt") {
          if (this.#armed) return { kind: "exit", code: exitCodes.interrupted };
          this.#armed = true;
          view.notice("(press Ctrl-C again to exit, or Ctrl-D)");
          continue;
        }
        this.#armed = false;
        text = result.text;
      }
      const trimmed = text.trim();
      if (trimmed === "") continue;
      if (trimmed.startsWith("/")) {
        const done = await runSlashCommand(this.parts, trimmed);
        if (done !== "continue") return done;
        continue;
      }
      if (!reader.interactive) writeLine(out, `${this.#mark} ${trimmed}`);
      const outcome = await this.#turn(this.#send(text));
      if (outcome === "forced") return { kind: "exit", code: exitCodes.interrupted };
      if ("kind" in outcome) return outcome;
      if (outcome.state === "interrupted" || outcome.state === "cancelled") this.#armed = true;
    }
  }

  /** Send a prompt as an input (files it mentions attached); the receipt resolves once admitted. */
  #send(text: string): SentInput {
    const { client, context, sessionId, watcher, view } = this.parts;
    const inputId = uuidV7();
    view.markOwnInput(inputId);
    const mentions = attachMentions(text, context.cwd);
    for (const note of mentions.notes) view.notice(note);
    const receipt = client
      .putInput(sessionId, inputId, { kind: "message", text: mentions.text })
      .then((admitted) => {
        watcher.noteReceipt(admitted);
        return admitted;
      })
      .catch((error: unknown) => {
        view.notice(`not sent: ${errorMessage(error)}`);
        return null;
      });
    return { inputId, receipt };
  }

  /** A prompt typed (and sent with Enter) while a turn runs. */
  #typedAhead(text: string): void {
    const trimmed = text.trim();
    if (trimmed === "") return;
    if (/^\/agents(\s|$)/.test(trimmed)) {
      // The agents work while the turn runs: list or open them now, not when it ends.
      void this.#agentsNow(trimmed);
      return;
    }
    if (trimmed.startsWith("/")) this.#ahead.push({ kind: "command", text: trimmed });
    else this.#ahead.push({ kind: "sent", text, ...this.#send(text) });
    this.#showQueue();
  }

  /** `/agents [N]` during a turn: list them, or leave the turn (it runs on) for the agent's session. */
  async #agentsNow(text: string): Promise<void> {
    const end = await runSlashCommand(this.parts, text);
    if (end === "continue") return;
    if (this.#leave !== null) this.#leave(end);
    else this.#ahead.push({ kind: "command", text });
  }

  /** The queued prompts, as dim lines above the prompt (not in the answer streaming above). */
  #showQueue(): void {
    this.parts.notes.setQueue(queueNotes(this.#ahead));
  }

  async #turn(sent: SentInput): Promise<TurnOutcome | "forced" | ChatEnd> {
    const { client, sessionId, watcher, view, reader, status, approvals } = this.parts;
    const { inputId } = sent;
    let receipt: InputReceipt | null = null;
    let interrupts = 0;
    let force: (value: "forced") => void = () => {};
    const forced = new Promise<"forced">((resolve) => {
      force = resolve;
    });
    const leaving = new Promise<ChatEnd>((resolve) => {
      this.#leave = resolve;
    });
    const interrupt = (admitted: InputReceipt): void => {
      const turnId = watcher.turnOf(inputId);
      // Before its run is known, cancelling the input itself is exact: a queued input is dropped,
      // and the turn it alone started is interrupted.
      const request =
        turnId === null
          ? client.cancelInput(sessionId, inputId)
          : client.interrupt(sessionId, turnId, admitted.acceptance_order);
      request.catch((error: unknown) => view.notice(`interrupt failed: ${errorMessage(error)}`));
    };
    const onCtrlC = (): void => {
      interrupts += 1;
      if (interrupts > 1) {
        force("forced");
        return;
      }
      view.notice("interrupting… (Ctrl-C again to quit)");
      status.start("interrupting…");
      // Before the input is admitted there is nothing to interrupt yet; it is done on admission.
      if (receipt !== null) interrupt(receipt);
    };
    // From the moment the prompt is sent, Ctrl-C interrupts the turn; it must never fall through
    // to the default handler (which would kill the CLI) while the terminal is not yet raw.
    process.on("SIGINT", onCtrlC);
    if (reader.takePendingCtrlC()) onCtrlC();
    try {
      // Approvals are asked inline; each question takes the keys from the turn's capture.
      const keys = approvals.duringTurn(
        () =>
          reader.captureKeys(
            onCtrlC,
            (typed) => this.#typedAhead(typed),
            this.#prompt,
            () => this.#typedAhead("/exit"),
          ),
        onCtrlC,
      );
      status.begin();
      if (interrupts > 0) status.start("interrupting…");
      let outcome: TurnOutcome | "forced" | ChatEnd;
      try {
        const admitted = await sent.receipt;
        if (admitted === null) return { turnId: null, state: "failed", errors: [] };
        receipt = admitted;
        if (interrupts > 0) interrupt(admitted);
        if (admitted.delivery === "pending" && watcher.status.phase !== "idle") {
          status.start("queued behind the running turn…");
        }
        outcome = await Promise.race([watcher.waitForInput(inputId), forced, leaving]);
      } finally {
        this.#leave = null;
        await keys.desk.stop();
        keys.release();
        status.end();
      }
      view.finish();
      if (outcome !== "forced" && !("kind" in outcome)) {
        // A prompt queued in the daemon starts its turn at once and may stream before this
        // footer (which awaits a snapshot) and its own echo are written: its events wait for
        // the loop to resume the view.
        view.pause();
        await this.#footer(outcome);
      }
      return outcome;
    } finally {
      process.off("SIGINT", onCtrlC);
    }
  }

  /** Interrupt whatever turn runs now (one this chat did not start). */
  #interruptRunning(): void {
    const { client, sessionId, watcher, view } = this.parts;
    const turnId = watcher.status.run_id;
    if (turnId === null) return;
    view.notice("interrupting the waiting turn…");
    client
      .interrupt(sessionId, turnId, 0)
      .catch((error: unknown) => view.notice(`interrupt failed: ${errorMessage(error)}`));
  }

  /** The turn's footer line, with the context's fill as the session reports it now. */
  async #footer(outcome: TurnOutcome): Promise<void> {
    const { client, sessionId, watcher, out } = this.parts;
    // Read before the round trip: a turn queued behind this one may start meanwhile and add to them.
    const facts = {
      state: outcome.state,
      model: watcher.model,
      usage: { ...watcher.usageOf(outcome.turnId) },
      sessionTokens: watcher.sessionUsage.total,
    };
    const context = await client
      .getSession(sessionId, 0)
      .then((snapshot) => snapshot.context)
      .catch(() => null);
    writeLine(out, turnFooter(out.paint, { ...facts, context }));
  }
}
