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
import type { FirstInput } from "../../api/inputs.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import { approveAutomatically } from "../approval-desk.js";
import { onBrokenPipe } from "../broken-pipe.js";
import { type CliContext, connect, connectFor } from "../cli-context.js";
import { CliError, describeFailure } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { type OpenedSession, openSession, type SessionChoice } from "../open-session.js";
import { approvalSummary } from "../render/approval-prompt.js";
import { writeShellWarning } from "../render/shell-warning.js";
import { withInterrupt } from "../sigint-interrupt.js";
import { readAll } from "../stdin-text.js";
import { stopSession } from "../stop-session.js";
import { report, waitsForPerson } from "./run-exit.js";
import { type RunEnd, resultOf, sumUsage } from "./run-result.js";
import { type TurnWatch, watchTurn } from "./run-turn-watch.js";

/** What `skein run` was asked for besides the prompt. */
export interface RunOptions extends SessionChoice {
  json?: boolean;
  hideThinking?: boolean;
  /** Allow every tool call the turn asks about. */
  approve?: boolean;
  /** Delete the session afterwards (only for a session this command creates). */
  ephemeral?: boolean;
}

/** The name `--approve` decisions carry in the session's log. */
const autoApproverId = "skein run --approve";

/** Run one turn; resolves with the exit code. */
export async function runPrompt(
  context: CliContext,
  promptArg: string,
  options: RunOptions,
): Promise<ExitCode> {
  checkRunOptions(options);
  const text = promptArg === "-" ? await readAll(context.stdin) : promptArg;
  if (text.trim() === "") throw new CliError("the prompt is empty", exitCodes.usage);
  const { err } = context.terminal;
  const inputId = uuidV7();
  const { client, opened } = await connectAndOpen(context, options, { id: inputId, kind: "message", text });
  let watch: TurnWatch | null = null;
  let unregisterPipe = (): void => undefined;
  try {
    const created = opened.created;
    const sessionId = opened.created ? opened.snapshot.id : opened.sessionId;
    // A new session's cursor is where its stream starts (after its creation, and the start of
    // its first input's turn when the daemon started it there); an existing one is attached fresh.
    const after = opened.created ? opened.snapshot.cursor : null;
    err.stream.write(err.paint.dim(`${created ? "new session" : "session"} ${sessionId}\n`));
    const shell = opened.created ? opened.snapshot.shell : undefined;
    if (shell !== undefined && shell.mode === "off") writeShellWarning(err, shell);
    const active = watchTurn(context, client, { sessionId, inputId, after }, options);
    watch = active;
    active.watcher.start();
    // A fresh attach must be positioned before the input exists, or its first events would be
    // folded into the snapshot; a new session's cursor already is.
    if (after === null) await active.watcher.connected();
    const receipt =
      (opened.created ? opened.snapshot.input : undefined) ??
      (await client.putInput(sessionId, inputId, { kind: "message", text }));
    active.watcher.noteReceipt(receipt);
    active.waiting.start();
    const interruptTurn = (): Promise<unknown> =>
      client.interrupt(sessionId, active.watcher.turnOf(inputId), receipt.acceptance_order);
    let pipeBroken: (value: "broken_pipe") => void = () => undefined;
    const brokenPipe = new Promise<"broken_pipe">((resolve) => {
      pipeBroken = resolve;
    });
    unregisterPipe = onBrokenPipe(async () => {
      pipeBroken("broken_pipe");
      await interruptTurn();
      if (created && options.ephemeral === true) await removeSession(client, sessionId);
    });
    const turn: RunTurn = { client, sessionId, inputId, created, watch: active };
    const outcome = await awaitOutcome(context, turn, options, interruptTurn, brokenPipe);
    // The cleanup registered above interrupts the turn; the process exits when it is done.
    if (outcome === "broken_pipe") return await new Promise<never>(() => undefined);
    unregisterPipe();
    active.view?.finish();
    return await finishRun(context, turn, outcome, options);
  } finally {
    unregisterPipe();
    watch?.waiting.stop();
    await watch?.watcher.stop();
    client.close();
  }
}

/** The turn this command runs: its session, its input and how it is watched. */
interface RunTurn {
  client: DaemonClient;
  sessionId: string;
  inputId: string;
  /** Whether this command created the session. */
  created: boolean;
  watch: TurnWatch;
}

/**
 * Reach the daemon and open the session `options` choose. A new session is created with the
 * prompt as its first input, in the command's first request (no `GET /server` before it: its
 * answer tells whether a daemon runs, and a daemon is started when none does).
 */
async function connectAndOpen(
  context: CliContext,
  options: RunOptions,
  first: FirstInput,
): Promise<{ client: DaemonClient; opened: OpenedSession }> {
  const open = (client: DaemonClient) => openSession(client, context.cwd, options, first);
  if (options.session === undefined && options.continue !== true) {
    const { client, answer } = await connectFor(context, open);
    return { client, opened: answer };
  }
  const client = await connect(context);
  try {
    return { client, opened: await open(client) };
  } catch (error) {
    client.close();
    throw error;
  }
}

/** Refuse option combinations that make no sense (a usage error). */
function checkRunOptions(options: RunOptions): void {
  if (options.ephemeral === true && (options.session !== undefined || options.continue === true)) {
    throw new CliError(
      "--ephemeral makes a session that is deleted afterwards; it cannot be combined with --session or --continue",
      exitCodes.usage,
    );
  }
  if (options.session !== undefined && options.continue === true) {
    throw new CliError("give either --session or --continue, not both", exitCodes.usage);
  }
}

/**
 * Wait for the turn's end, a call that needs a person, or a broken pipe; Ctrl-C interrupts the
 * turn meanwhile. With --approve, calls are approved as they come.
 */
async function awaitOutcome(
  context: CliContext,
  turn: RunTurn,
  options: RunOptions,
  interruptTurn: () => Promise<unknown>,
  brokenPipe: Promise<"broken_pipe">,
): Promise<RunEnd> {
  const { err } = context.terminal;
  const { watcher, waiting, approvals, ours } = turn.watch;
  const stopApproving =
    options.approve === true
      ? approveAutomatically(approvals, {
          client: turn.client,
          sessionId: turn.sessionId,
          clientId: autoApproverId,
          filter: ours,
          report: (request, outcome) => {
            waiting.before();
            if (outcome instanceof Error) {
              err.stream.write(`skein: could not approve ${approvalSummary(request)}: ${outcome.message}\n`);
            } else if (!options.json) {
              err.stream.write(err.paint.dim(`approved ${approvalSummary(request)} (--approve)\n`));
            }
          },
        })
      : () => undefined;
  // Without --approve any call that waits ends the command; with it, only a question or an unknown outcome does.
  const personOnly = (request: PendingApproval) =>
    request.tool === "ask_user" || request.kind === "unknown_outcome";
  const needsPerson = watcher.waitUntil(
    () =>
      approvals
        .list()
        .find((request) => ours(request) && (options.approve !== true || personOnly(request))) ?? null,
  );
  try {
    return await withInterrupt(
      () => {
        waiting.before();
        err.stream.write(err.paint.dim("\ninterrupting… (Ctrl-C again to leave at once)\n"));
        void interruptTurn().catch((error: unknown) =>
          err.stream.write(`skein: interrupt failed: ${String(error)}\n`),
        );
      },
      Promise.race([watcher.waitForInput(turn.inputId), needsPerson, brokenPipe]),
    );
  } finally {
    stopApproving();
    waiting.stop();
  }
}

/**
 * Report the outcome (the exit code, the --json result line), deleting the session when this
 * command created it and it is not worth keeping (--ephemeral, or failed before any answer).
 */
async function finishRun(
  context: CliContext,
  turn: RunTurn,
  outcome: Exclude<RunEnd, "broken_pipe">,
  options: RunOptions,
): Promise<ExitCode> {
  const { out, err } = context.terminal;
  const { client, sessionId, created, watch } = turn;
  const usage = sumUsage(watch.watcher.turnsOf(turn.inputId).map((turnId) => watch.watcher.usageOf(turnId)));
  const failedBeforeAnswer =
    outcome !== "forced" && "state" in outcome && outcome.state === "failed" && usage.total_tokens === 0;
  let remove = created && (options.ephemeral === true || failedBeforeAnswer);
  let failure: CliError | null = null;
  let exitCode: ExitCode;
  try {
    if (outcome !== "forced" && "call_id" in outcome) {
      throw waitsForPerson(sessionId, outcome, created && options.ephemeral === true);
    }
    exitCode = report(context, sessionId, outcome, !remove);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    failure = error;
    exitCode = error.exitCode;
  }
  if (remove) {
    try {
      await removeSession(client, sessionId);
    } catch (error) {
      remove = false;
      err.stream.write(`skein: could not delete session ${sessionId}: ${describeFailure(error).message}\n`);
    }
  }
  if (remove && options.ephemeral !== true) {
    err.stream.write(
      err.paint.dim(`removed session ${sessionId} (its turn failed before the model answered)\n`),
    );
  }
  if (options.json) {
    const result = resultOf(sessionId, outcome, watch.answer.last(), usage, exitCode, remove);
    out.stream.write(`${JSON.stringify(result)}\n`);
  }
  if (failure !== null) throw failure;
  return exitCode;
}

/** Delete a session this command made, stopping its turn first. */
async function removeSession(client: DaemonClient, sessionId: string): Promise<void> {
  await stopSession(client, sessionId, 10_000);
  await client.deleteSession(sessionId);
}
