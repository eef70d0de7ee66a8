/**
 * What `skein run` watches its one turn with: the session's stream (a watcher), the transcript
 * it prints (none with --json), the waiting line, the approvals asked for and the answer text.
 */
import type { PendingApproval } from "../../api/approvals.js";
import type { StreamCursor } from "../../api/stream-cursor.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { PendingApprovals } from "../approval-desk.js";
import type { CliContext } from "../cli-context.js";
import { TranscriptView } from "../render/transcript-view.js";
import { WaitingLine } from "../render/waiting-line.js";
import { SessionWatcher } from "../session-watcher.js";
import { AnswerText } from "./run-answer-text.js";
import { waitingLabel } from "./run-waiting-label.js";

/** One turn's watch: built before the input is sent, started by the caller. */
export interface TurnWatch {
  watcher: SessionWatcher;
  view: TranscriptView | null;
  waiting: WaitingLine;
  approvals: PendingApprovals;
  answer: AnswerText;
  /** Whether an approval request belongs to a run of this command's input. */
  ours(request: PendingApproval): boolean;
}

/** The watch of the turn `inputId` starts, in `sessionId` from `after` (null: attach fresh). */
export function watchTurn(
  context: CliContext,
  client: DaemonClient,
  target: { sessionId: string; inputId: string; after: StreamCursor | null },
  options: { json?: boolean; hideThinking?: boolean },
): TurnWatch {
  const { out, err } = context.terminal;
  let turnsOfInput: () => readonly string[] = () => [];
  const ourTurn = (turnId: string | null): boolean => turnId !== null && turnsOfInput().includes(turnId);
  const waiting = new WaitingLine(err);
  const view = options.json
    ? null
    : new TranscriptView({
        text: out,
        aside: err,
        showThinking: options.hideThinking !== true && err.tty,
        showUserEntries: false,
        showErrors: false,
        // The watcher learns our run from the receipt event, which precedes the run's output.
        turnFilter: ourTurn,
        surroundWrites: waiting,
      });
  view?.markOwnInput(target.inputId);
  const approvals = new PendingApprovals();
  const answer = new AnswerText();
  const watcher = new SessionWatcher(client, target.sessionId, view, {
    after: target.after,
    tail: 0,
    initialHistory: "skip",
    onBatch: (batch) => {
      approvals.observe(batch);
      for (const event of batch.events) {
        answer.observe(event, ourTurn);
        waiting.activity(waitingLabel(event));
      }
      if (options.json) {
        waiting.before();
        for (const event of batch.raw) out.stream.write(`${JSON.stringify(event)}\n`);
      }
    },
  });
  turnsOfInput = () => watcher.turnsOf(target.inputId);
  return { watcher, view, waiting, approvals, answer, ours: (request) => ourTurn(request.run_id) };
}
