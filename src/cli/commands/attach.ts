/**
 * `skein attach ID`: follow a session live (its recent history first), across reconnects and
 * daemon restarts, until Ctrl-C (which detaches; the session keeps running). Tool calls that
 * wait for approval are shown and, on a terminal, can be answered (Ctrl-C at the question
 * detaches and leaves them waiting).
 *
 * Boundary rule: it never sends input or interrupts; its only writes are approval answers.
 */
import { waitingKey } from "../approval-desk.js";
import { ChatApprovals } from "../chat-approvals.js";
import { type CliContext, connect } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { approvalSummary } from "../render/approval-prompt.js";
import { Spinner } from "../render/spinner.js";
import { type OutputStream, wantsColor } from "../render/terminal.js";
import { TranscriptView } from "../render/transcript-view.js";
import { resolveSessionId } from "../session-ref.js";
import { SessionWatcher } from "../session-watcher.js";

export interface AttachOptions {
  tail?: number;
  hideThinking?: boolean;
  /** Leave once the session is idle with nothing queued. */
  untilIdle?: boolean;
}

/** Follow a session; resolves with the exit code when detached. */
export async function attachSession(
  context: CliContext,
  ref: string,
  options: AttachOptions,
): Promise<ExitCode> {
  const client = await connect(context);
  const out = context.terminal.out;
  const spinner = new Spinner(out, context.env);
  try {
    const id = await resolveSessionId(client, ref);
    const view = new TranscriptView({
      text: out,
      aside: out,
      showThinking: options.hideThinking !== true,
      showUserEntries: true,
      markdown: out.tty && wantsColor(out.tty, context.env),
      spinner,
    });
    const interactive = context.stdin.isTTY === true && out.tty;
    const approvals = new ChatApprovals({
      client,
      sessionId: id,
      workspace: (await client.getSession(id, 0)).workspace,
      out,
      print: (line) => view.line(line),
      reader: { interactive, read: async () => ({ kind: "eof" }) },
      stdin: context.stdin,
      stdout: process.stdout,
    });
    const watcher = new SessionWatcher(client, id, view, {
      after: null,
      tail: options.tail ?? 10,
      initialHistory: "render",
      onBatch: (batch) => {
        // Attached while a run streams: its message in flight lost its start (shown once committed).
        if (batch.reset?.reason === "initial") view.joinedDuring(batch.reset.snapshot.status.run_id);
        approvals.pending.observe(batch);
      },
    });
    view.notice(`attached to session ${id} (Ctrl-C detaches; the session keeps running)`);
    watcher.start();
    await watcher.connected();
    const idle = (): boolean => watcher.status.phase === "idle" && watcher.pendingInputs.size === 0;
    let detach: () => void = () => {};
    const detached = new Promise<"detached">((resolve) => {
      detach = () => resolve("detached");
    });
    process.once("SIGINT", detach);
    const desk = interactive ? approvals.serve(detach) : null;
    // Without a terminal to answer on, each waiting call gets one line saying how to answer it.
    const stopAnnouncing = interactive ? () => undefined : announceWaitingCalls(approvals, view, out, id);
    try {
      await Promise.race([
        detached,
        options.untilIdle === true ? watcher.waitUntil(idle) : watcher.waitUntil(() => false),
      ]);
    } finally {
      process.off("SIGINT", detach);
      stopAnnouncing();
      await desk?.stop();
    }
    view.finish();
    await watcher.stop();
    return exitCodes.ok;
  } finally {
    spinner.stop();
    client.close();
  }
}

/** One line for each call that waits for approval, saying how to answer it; returns the stop. */
function announceWaitingCalls(
  approvals: ChatApprovals,
  view: TranscriptView,
  out: OutputStream,
  sessionId: string,
): () => void {
  const announced = new Set<string>();
  const announce = (): void => {
    for (const request of approvals.pending.list()) {
      if (announced.has(waitingKey(request))) continue;
      announced.add(waitingKey(request));
      // A `task` child's call (relayed here) is answered at the child's session.
      const session = (request.session_id ?? sessionId).slice(0, 13);
      view.line(
        out.paint.yellow(
          `⚠ waiting for approval: ${approvalSummary(request)} — skein approve ${session} ${request.call_id}`,
        ),
      );
    }
  };
  const stop = approvals.pending.onChange(announce);
  announce();
  return stop;
}
