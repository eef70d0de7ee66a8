/**
 * `skein run "prompt" [--session ID | -c] [--json] [--ephemeral]`: one turn, its answer on stdout.
 *
 * Boundary rule: one input, one turn, then exit. Answer text goes to stdout; the session's id,
 * tool lines, thinking (on a terminal), the waiting line and notices go to stderr, so `skein
 * run … > answer.txt` captures the answer only. With --json, stdout gets every stream event as
 * one JSON line instead, and a last line `{"type":"result",…}` that sums the turn up. Ctrl-C
 * interrupts the turn (exit 130); a second Ctrl-C leaves at once; a reader that goes away
 * (`| head`) interrupts it too. A tool call the turn asks about ends the command at once
 * (exit 5, the call left waiting) unless --approve allows it; an `ask_user` question always
 * does. A session this command created is deleted afterwards with --ephemeral, and also when
 * its turn failed before the model answered anything (nothing in it is worth keeping).
 */
import type { PendingApproval } from "../../api/approvals.js";
import type { SessionEvent } from "../../api/session-events.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import { approveAutomatically, PendingApprovals } from "../approval-desk.js";
import { onBrokenPipe } from "../broken-pipe.js";
import { type CliContext, connectWithServer } from "../cli-context.js";
import { CliError, describeFailure } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { approvalSummary, requestSubject } from "../render/approval-prompt.js";
import { writeShellWarning } from "../render/shell-warning.js";
import { TranscriptView } from "../render/transcript-view.js";
import { WaitingLine } from "../render/waiting-line.js";
import { resolveSessionId } from "../session-ref.js";
import { type ModelOptions, newSessionSettings, settingsPatch } from "../session-settings-options.js";
import { SessionWatcher, type TurnOutcome, type UsageTotals } from "../session-watcher.js";
import { stopSession } from "../stop-session.js";

export interface RunOptions extends ModelOptions {
  session?: string;
  /** Run in the most recently active session of the current directory (a new one if none). */
  continue?: boolean;
  json?: boolean;
  hideThinking?: boolean;
  name?: string;
  /** Allow every tool call the turn asks about. */
  approve?: boolean;
  /** Delete the session afterwards (only for a session this command creates). */
  ephemeral?: boolean;
}

/** The last line of `--json`: what a script needs to know about the turn. */
export interface RunResult {
  type: "result";
  session_id: string;
  /** How the turn stands: ended (completed, failed, interrupted), waits for a person, or was given up. */
  status: "completed" | "failed" | "interrupted" | "waiting" | "abandoned";
  /** The text of the turn's last model message ("" when there was none). */
  text: string;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    cached_prompt_tokens: number;
    total_tokens: number;
  };
  /**
   * Why it stopped: `finished` or `limit_reached` (completed); the error code (failed);
   * `interrupted`, `cancelled`, `forced` (a second Ctrl-C) or `broken_pipe`; `approval_needed` or
   * `question` (waiting); `daemon_restarted` (abandoned).
   */
  exit_reason: string;
  exit_code: number;
  /** Whether the session was deleted afterwards (--ephemeral, or a failed one-off session). */
  session_removed: boolean;
  errors: { code: string; message: string }[];
}

/** The name `--approve` decisions carry in the session's log. */
const autoApproverId = "skein run --approve";

/** What the turn ended with, as the command sees it. */
type RunEnd = TurnOutcome | PendingApproval | "forced" | "broken_pipe";

/** Run one turn; resolves with the exit code. */
export async function runPrompt(
  context: CliContext,
  promptArg: string,
  options: RunOptions,
): Promise<ExitCode> {
  if (options.ephemeral === true && (options.session !== undefined || options.continue === true)) {
    throw new CliError(
      "--ephemeral makes a session that is deleted afterwards; it cannot be combined with --session or --continue",
      exitCodes.usage,
    );
  }
  if (options.session !== undefined && options.continue === true) {
    throw new CliError("give either --session or --continue, not both", exitCodes.usage);
  }
  const text = promptArg === "-" ? await readAll(context.stdin) : promptArg;
  if (text.trim() === "") throw new CliError("the prompt is empty", exitCodes.usage);
  const { out, err } = context.terminal;
  const { client, server } = await connectWithServer(context);
  let watcher: SessionWatcher | null = null;
  let waiting: WaitingLine | null = null;
  let unregisterPipe = (): void => undefined;
  try {
    const { sessionId, after, created } = await openSession(client, context, options);
    err.stream.write(err.paint.dim(`${created ? "new session" : "session"} ${sessionId}\n`));
    const shell = created ? server.shell : undefined;
    if (shell !== undefined && shell.mode === "off") writeShellWarning(err, shell);
    const inputId = uuidV7();
    let runsOfInput: () => readonly string[] = () => [];
    const ourRun = (runId: string | null): boolean => runId !== null && runsOfInput().includes(runId);
    const activeWaiting: WaitingLine | null = new WaitingLine(err);
    waiting = activeWaiting;
    const view = options.json
      ? null
      : new TranscriptView({
          text: out,
          aside: err,
          showThinking: options.hideThinking !== true && err.tty,
          showUserEntries: false,
          showErrors: false,
          // The watcher learns our run from the receipt event, which precedes the run's output.
          runFilter: ourRun,
          ...(activeWaiting === null ? {} : { surroundWrites: activeWaiting }),
        });
    view?.markOwnInput(inputId);
    const approvals = new PendingApprovals();
    const answer = new AnswerText();
    const activeWatcher = new SessionWatcher(client, sessionId, view, {
      after,
      tail: 0,
      initialHistory: "skip",
      onBatch: (batch) => {
        approvals.observe(batch);
        for (const event of batch.events) {
          answer.observe(event, ourRun);
          activeWaiting?.activity(waitingLabel(event));
        }
        if (options.json) {
          activeWaiting?.before();
          for (const event of batch.raw) out.stream.write(`${JSON.stringify(event)}\n`);
        }
      },
    });
    runsOfInput = () => activeWatcher.runsOf(inputId);
    watcher = activeWatcher;
    activeWatcher.start();
    // A fresh attach must be positioned before the input exists, or its first events would be
    // folded into the snapshot; a new session's cursor already is.
    if (after === null) await activeWatcher.connected();
    const receipt = await client.putInput(sessionId, inputId, { kind: "message", text });
    activeWatcher.noteReceipt(receipt);
    activeWaiting?.start();
    const interruptTurn = (): Promise<unknown> =>
      client.interrupt(sessionId, activeWatcher.runOf(inputId), receipt.acceptance_order);
    let pipeBroken: (value: "broken_pipe") => void = () => undefined;
    const brokenPipe = new Promise<"broken_pipe">((resolve) => {
      pipeBroken = resolve;
    });
    unregisterPipe = onBrokenPipe(async () => {
      pipeBroken("broken_pipe");
      await interruptTurn();
      if (created && options.ephemeral === true) await removeSession(client, sessionId);
    });
    const ours = (request: PendingApproval): boolean => ourRun(request.run_id);
    const stopApproving =
      options.approve === true
        ? approveAutomatically(approvals, {
            client,
            sessionId,
            clientId: autoApproverId,
            filter: ours,
            report: (request, outcome) => {
              activeWaiting?.before();
              if (outcome instanceof Error) {
                err.stream.write(
                  `skein: could not approve ${approvalSummary(request)}: ${outcome.message}\n`,
                );
              } else if (!options.json) {
                err.stream.write(err.paint.dim(`approved ${approvalSummary(request)} (--approve)\n`));
              }
            },
          })
        : () => undefined;
    // Without --approve any call that waits ends the command; with it, only a question does.
    const needsPerson = activeWatcher.waitUntil(
      () =>
        approvals
          .list()
          .find((request) => ours(request) && (options.approve !== true || request.tool === "ask_user")) ??
        null,
    );

    let outcome: RunEnd;
    try {
      outcome = await withInterrupt(
        () => {
          activeWaiting?.before();
          err.stream.write(err.paint.dim("\ninterrupting… (Ctrl-C again to leave at once)\n"));
          void interruptTurn().catch((error: unknown) =>
            err.stream.write(`skein: interrupt failed: ${String(error)}\n`),
          );
        },
        Promise.race([activeWatcher.waitForInput(inputId), needsPerson, brokenPipe]),
      );
    } finally {
      stopApproving();
      activeWaiting?.stop();
    }
    // The cleanup registered above interrupts the turn; the process exits when it is done.
    if (outcome === "broken_pipe") return await new Promise<never>(() => undefined);
    unregisterPipe();
    view?.finish();
    const usage = sumUsage(activeWatcher.runsOf(inputId).map((runId) => activeWatcher.usageOf(runId)));
    let failure: CliError | null = null;
    let exitCode: ExitCode;
    try {
      if (outcome !== "forced" && "call_id" in outcome) {
        throw waitsForPerson(sessionId, outcome, created && options.ephemeral === true);
      }
      exitCode = report(context, sessionId, outcome);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      failure = error;
      exitCode = error.exitCode;
    }
    const failedBeforeAnswer =
      outcome !== "forced" && "state" in outcome && outcome.state === "failed" && usage.total_tokens === 0;
    let remove = created && (options.ephemeral === true || failedBeforeAnswer);
    if (remove) {
      try {
        await removeSession(client, sessionId);
      } catch (error) {
        remove = false;
        err.stream.write(`skein: could not delete session ${sessionId}: ${describeFailure(error).message}\n`);
      }
    }
    if (remove) {
      if (options.ephemeral !== true) {
        err.stream.write(
          err.paint.dim(`removed session ${sessionId} (its turn failed before the model answered)\n`),
        );
      }
    }
    if (options.json) {
      const result = resultOf(sessionId, outcome, answer.last(), usage, exitCode, remove);
      out.stream.write(`${JSON.stringify(result)}\n`);
    }
    if (failure !== null) throw failure;
    return exitCode;
  } finally {
    unregisterPipe();
    waiting?.stop();
    await watcher?.stop();
    client.close();
  }
}

/** The session to run in: the one named, the latest of this directory, or a new one. */
async function openSession(
  client: DaemonClient,
  context: CliContext,
  options: RunOptions,
): Promise<{ sessionId: string; after: StreamCursor | null; created: boolean }> {
  let existing: string | null = null;
  if (options.session !== undefined) existing = await resolveSessionId(client, options.session);
  else if (options.continue === true) {
    existing = (await client.listSessions()).find((session) => session.workspace === context.cwd)?.id ?? null;
  }
  if (existing !== null) {
    const patch = settingsPatch(options);
    if (patch !== null) await client.updateSettings(existing, patch);
    return { sessionId: existing, after: null, created: false };
  }
  const snapshot = await client.createSession(uuidV7(), {
    workspace: context.cwd,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...newSessionSettings(options),
  });
  return { sessionId: snapshot.id, after: snapshot.cursor, created: true };
}

/** Delete a session this command made, stopping its turn first. */
async function removeSession(client: DaemonClient, sessionId: string): Promise<void> {
  await stopSession(client, sessionId, 10_000);
  await client.deleteSession(sessionId);
}

/** What the waiting line says after `event`: a running tool, or the model. */
function waitingLabel(event: SessionEvent): string | undefined {
  if (event.type === "tool")
    return event.data.result === null ? `running ${event.data.name}` : "waiting for the model";
  if (event.type === "compaction_started") return "compacting the context";
  if (event.type === "approval_requested") return "waiting for an approval";
  if (event.type === "turn_completed" || event.type === "compaction_completed")
    return "waiting for the model";
  return undefined;
}

/** The text of each of our runs' model messages, to report the last one. */
class AnswerText {
  readonly #messages = new Map<string, string>();

  observe(event: SessionEvent, ours: (runId: string | null) => boolean): void {
    if (event.type !== "text" || !ours(event.data.run_id)) return;
    const id = event.data.message_id;
    this.#messages.set(id, (this.#messages.get(id) ?? "") + event.data.text);
  }

  last(): string {
    return [...this.#messages.values()].at(-1) ?? "";
  }
}

function sumUsage(parts: readonly UsageTotals[]): RunResult["usage"] {
  const sum = (pick: (usage: UsageTotals) => number): number =>
    parts.reduce((total, part) => total + pick(part), 0);
  return {
    prompt_tokens: sum((usage) => usage.prompt),
    completion_tokens: sum((usage) => usage.completion),
    cached_prompt_tokens: sum((usage) => usage.cached),
    total_tokens: sum((usage) => usage.total),
  };
}

function resultOf(
  sessionId: string,
  outcome: Exclude<RunEnd, "broken_pipe">,
  text: string,
  usage: RunResult["usage"],
  exitCode: number,
  removed: boolean,
): RunResult {
  const { status, exit_reason, errors } = endOf(outcome);
  return {
    type: "result",
    session_id: sessionId,
    status,
    text,
    usage,
    exit_reason,
    exit_code: exitCode,
    session_removed: removed,
    errors,
  };
}

/** The result's status, reason and errors for how the turn ended. */
function endOf(
  outcome: Exclude<RunEnd, "broken_pipe">,
): Pick<RunResult, "status" | "exit_reason" | "errors"> {
  if (outcome === "forced") return { status: "interrupted", exit_reason: "forced", errors: [] };
  if ("call_id" in outcome) {
    return {
      status: "waiting",
      exit_reason: outcome.tool === "ask_user" ? "question" : "approval_needed",
      errors: [],
    };
  }
  const errors = outcome.errors;
  switch (outcome.state) {
    case "completed":
      return { status: "completed", exit_reason: outcome.outcome ?? "finished", errors };
    case "failed":
      return { status: "failed", exit_reason: errors[0]?.code ?? "failed", errors };
    case "interrupted":
    case "cancelled":
      return { status: "interrupted", exit_reason: outcome.state, errors };
    case "abandoned":
    case "running":
      return { status: "abandoned", exit_reason: "daemon_restarted", errors };
    default: {
      const unknown: never = outcome.state;
      throw new Error(`unexpected turn state ${String(unknown)}`);
    }
  }
}

/** The failure of a run whose turn waits for a person: the call stays waiting; say how to answer it. */
function waitsForPerson(sessionId: string, request: PendingApproval, removed: boolean): CliError {
  const session = sessionId.slice(0, 13);
  if (removed) {
    return new CliError(
      `the turn stopped to wait for ${request.tool === "ask_user" ? `an answer (${requestSubject(request)})` : `approval of ${approvalSummary(request)}`}; the --ephemeral session was deleted`,
      exitCodes.approvalNeeded,
      "run with --approve, or without --ephemeral to answer it with skein approve/deny",
    );
  }
  if (request.tool === "ask_user") {
    return new CliError(
      `the agent asks: ${requestSubject(request)} (call ${request.call_id})`,
      exitCodes.approvalNeeded,
      `answer with \`skein approve ${session} ${request.call_id} -m "…"\``,
    );
  }
  return new CliError(
    `the turn waits for approval of ${approvalSummary(request)} (call ${request.call_id})`,
    exitCodes.approvalNeeded,
    `answer with \`skein approve ${session} ${request.call_id}\` or \`skein deny ${session} ${request.call_id} -m "why"\`, or run with --approve`,
  );
}

function report(context: CliContext, sessionId: string, outcome: TurnOutcome | "forced"): ExitCode {
  if (outcome === "forced") return exitCodes.interrupted;
  switch (outcome.state) {
    case "completed":
      return exitCodes.ok;
    case "interrupted":
    case "cancelled":
      context.terminal.err.stream.write("skein: the turn was interrupted\n");
      return exitCodes.interrupted;
    case "failed": {
      const message = outcome.errors.map((error) => error.message).join("; ") || "the turn failed";
      throw new CliError(message, exitCodes.error, hintFor(outcome.errors.map((error) => error.code)));
    }
    case "abandoned":
      throw new CliError(
        `the daemon restarted during the turn and the session went on without it; see \`skein show ${sessionId.slice(0, 13)}\``,
      );
    case "running":
      throw new CliError("the turn is still running");
    default: {
      const unknown: never = outcome.state;
      throw new CliError(`unexpected turn state ${String(unknown)}`);
    }
  }
}

function hintFor(codes: readonly string[]): string | undefined {
  if (codes.includes("provider_unconfigured")) return "see `skein config --help`";
  if (codes.includes("provider_error")) return "check the provider with `skein config test`";
  return undefined;
}

/**
 * Wait for `work`; on the first SIGINT call `onInterrupt` and keep waiting, on the second give
 * up ("forced").
 */
export async function withInterrupt<T>(onInterrupt: () => void, work: Promise<T>): Promise<T | "forced"> {
  let interrupts = 0;
  let forced: (value: "forced") => void = () => {};
  const forcedPromise = new Promise<"forced">((resolve) => {
    forced = resolve;
  });
  const handler = (): void => {
    interrupts += 1;
    if (interrupts === 1) onInterrupt();
    else forced("forced");
  };
  process.on("SIGINT", handler);
  try {
    return await Promise.race([work, forcedPromise]);
  } finally {
    process.off("SIGINT", handler);
  }
}

/** All of stdin as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
