/**
 * `skein run "prompt" [--session ID] [--json]`: one turn, its answer on stdout.
 *
 * Boundary rule: one input, one turn, then exit. Answer text goes to stdout; tool lines,
 * thinking (on a terminal) and notices go to stderr, so `skein run … > answer.txt` captures the
 * answer only. With --json, stdout gets every stream event as one JSON line instead. Ctrl-C
 * interrupts the turn (exit 130); a second Ctrl-C leaves at once. A tool call the turn asks
 * about ends the command at once (exit 5, the call left waiting) unless --approve allows it;
 * an `ask_user` question always does.
 */
import type { PendingApproval } from "../../api/approvals.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import { approveAutomatically, PendingApprovals } from "../approval-desk.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { approvalSummary, requestSubject } from "../render/approval-prompt.js";
import { TranscriptView } from "../render/transcript-view.js";
import { resolveSessionId } from "../session-ref.js";
import { type ModelOptions, newSessionSettings, settingsPatch } from "../session-settings-options.js";
import { SessionWatcher, type TurnOutcome } from "../session-watcher.js";

export interface RunOptions extends ModelOptions {
  session?: string;
  json?: boolean;
  hideThinking?: boolean;
  name?: string;
  /** Allow every tool call the turn asks about. */
  approve?: boolean;
}

/** The name `--approve` decisions carry in the session's log. */
const autoApproverId = "skein run --approve";

/** Run one turn; resolves with the exit code. */
export async function runPrompt(
  context: CliContext,
  promptArg: string,
  options: RunOptions,
): Promise<ExitCode> {
  const text = promptArg === "-" ? await readAll(context.stdin) : promptArg;
  if (text.trim() === "") throw new CliError("the prompt is empty", exitCodes.usage);
  const { out, err } = context.terminal;
  const client = await connect(context);
  let watcher: SessionWatcher | null = null;
  try {
    let sessionId: string;
    let after: StreamCursor | null = null;
    if (options.session !== undefined) {
      sessionId = await resolveSessionId(client, options.session);
      const patch = settingsPatch(options);
      if (patch !== null) await client.updateSettings(sessionId, patch);
    } else {
      const snapshot = await client.createSession(uuidV7(), {
        workspace: context.cwd,
        ...(options.name === undefined ? {} : { name: options.name }),
        ...newSessionSettings(options),
      });
      sessionId = snapshot.id;
      after = snapshot.cursor;
    }
    const inputId = uuidV7();
    let runsOfInput: () => readonly string[] = () => [];
    const view = options.json
      ? null
      : new TranscriptView({
          text: out,
          aside: err,
          showThinking: options.hideThinking !== true && err.tty,
          showUserEntries: false,
          showErrors: false,
          // The watcher learns our run from the receipt event, which precedes the run's output.
          runFilter: (runId) => runId !== null && runsOfInput().includes(runId),
        });
    view?.markOwnInput(inputId);
    const approvals = new PendingApprovals();
    const activeWatcher = new SessionWatcher(client, sessionId, view, {
      after,
      tail: 0,
      initialHistory: "skip",
      onBatch: (batch) => {
        approvals.observe(batch);
        if (options.json) for (const event of batch.raw) out.stream.write(`${JSON.stringify(event)}\n`);
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
    const ours = (request: PendingApproval): boolean =>
      request.run_id !== null && activeWatcher.runsOf(inputId).includes(request.run_id);
    const stopApproving =
      options.approve === true
        ? approveAutomatically(approvals, {
            client,
            sessionId,
            clientId: autoApproverId,
            filter: ours,
            report: (request, outcome) => {
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

    let outcome: TurnOutcome | PendingApproval | "forced";
    try {
      outcome = await withInterrupt(
        () => {
          err.stream.write(err.paint.dim("\ninterrupting… (Ctrl-C again to leave at once)\n"));
          void client
            .interrupt(sessionId, activeWatcher.runOf(inputId), receipt.acceptance_order)
            .catch((error: unknown) => err.stream.write(`skein: interrupt failed: ${String(error)}\n`));
        },
        Promise.race([activeWatcher.waitForInput(inputId), needsPerson]),
      );
    } finally {
      stopApproving();
    }
    view?.finish();
    if (outcome !== "forced" && "call_id" in outcome) throw waitsForPerson(sessionId, outcome);
    return report(context, sessionId, outcome);
  } finally {
    await watcher?.stop();
    client.close();
  }
}

/** The failure of a run whose turn waits for a person: the call stays waiting; say how to answer it. */
function waitsForPerson(sessionId: string, request: PendingApproval): CliError {
  const session = sessionId.slice(0, 13);
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
