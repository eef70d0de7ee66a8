/**
 * Approvals in `skein chat` (and `skein attach`): the session's waiting tool calls are shown
 * inline, with a diff for file edits, and answered with y / n / a / a message, from the
 * terminal (or, when the chat reads a pipe, from its next line).
 *
 * Boundary rule: glue between the chat's terminal (its prompt reader, its key capture during a
 * turn) and the approval desk; what is asked and sent is approval-desk.ts's.
 */
import type { DaemonClient } from "../client/daemon-client.js";
import type { StreamBatch } from "../client/stream-batch.js";
import {
  type ApprovalDesk,
  type ApprovalDeskOptions,
  cliClientId,
  PendingApprovals,
  serveApprovals,
  terminalAsk,
} from "./approval-desk.js";
import type { PromptResult } from "./prompt-reader.js";
import type { OutputStream } from "./render/terminal.js";
import { workspaceTextReader } from "./workspace-text.js";

export interface ChatApprovalsOptions {
  client: DaemonClient;
  sessionId: string;
  workspace: string;
  out: OutputStream;
  /** Print one line through the transcript view (so it never lands inside streamed text). */
  print(line: string): void;
  /** How the chat reads lines: a terminal (questions get their own line editor) or a pipe (its next line). */
  reader: { readonly interactive: boolean; read(prompt: string): Promise<PromptResult> };
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
}

export class ChatApprovals {
  /** Feed it every batch of the session's stream. */
  readonly pending = new PendingApprovals({ relayed: true });
  readonly #options: ChatApprovalsOptions;

  constructor(options: ChatApprovalsOptions) {
    this.#options = options;
  }

  /** Whether a call waits. */
  get waiting(): boolean {
    return this.pending.list().length > 0;
  }

  /**
   * Ask about waiting calls while a turn runs, with the turn's Ctrl-C handling: `capture`
   * starts the turn's key capture (returning its release), which each question suspends.
   * Returns the desk (stop it when the turn ends) and the release of the capture in force.
   */
  duringTurn(capture: () => () => void, onCtrlC: () => void): { desk: ApprovalDesk; release(): void } {
    let release = capture();
    const desk = serveApprovals(
      this.pending,
      this.#deskOptions(onCtrlC, () => {
        release();
        return () => {
          release = capture();
        };
      }),
    );
    return { desk, release: () => release() };
  }

  /** Ask about waiting calls until the desk is stopped (`skein attach`). */
  serve(onCtrlC: () => void): ApprovalDesk {
    return serveApprovals(this.pending, this.#deskOptions(onCtrlC));
  }

  /**
   * Answer what waits before the next prompt (calls of a turn started elsewhere, or of one a
   * restart cut): resolves once nothing waits, or after Ctrl-C (which calls `onCtrlC`).
   */
  async answerWaiting(onCtrlC: () => void): Promise<void> {
    if (!this.waiting) return;
    let interrupted = false;
    let wake = (): void => {};
    const desk = serveApprovals(
      this.pending,
      this.#deskOptions(() => {
        interrupted = true;
        onCtrlC();
        wake();
      }),
    );
    await new Promise<void>((resolve) => {
      let unsubscribe = (): void => {};
      wake = () => {
        if (this.waiting && !interrupted) return;
        unsubscribe();
        resolve();
      };
      unsubscribe = this.pending.onChange(wake);
      wake();
    });
    await desk.stop();
  }

  /** Learn from one batch of the session's stream (a stream that starts over looks the children's calls up again). */
  observe(batch: StreamBatch): void {
    this.pending.observe(batch);
    if (batch.reset !== null && batch.reset.reason !== "initial") void this.lookUpChildrenWaiting();
  }

  /**
   * Look up the calls the session's `task` children wait on (a chat that starts, or a stream that
   * starts over, has only the session's own in its snapshot); they are asked like relayed ones.
   */
  async lookUpChildrenWaiting(): Promise<void> {
    const { client, sessionId } = this.#options;
    const children = await client.listSessions({ parent_id: sessionId }).catch(() => []);
    for (const child of children) {
      if (child.agent === null || child.status.phase !== "waiting") continue;
      const snapshot = await client.getSession(child.id, 0).catch(() => null);
      if (snapshot !== null) this.pending.relayedFrom(child.id, snapshot.pending_approvals);
    }
  }

  #deskOptions(onInterrupt: () => void, suspendKeys?: () => () => void): ApprovalDeskOptions {
    const { client, sessionId, workspace, out, print, reader, stdin, stdout } = this.#options;
    const ask: ApprovalDeskOptions["ask"] = reader.interactive
      ? terminalAsk(stdin, stdout)
      : async (prompt) => {
          const result = await reader.read(prompt);
          return result.kind === "line"
            ? result
            : result.kind === "eof"
              ? { kind: "eof" }
              : { kind: "interrupt" };
        };
    return {
      client,
      sessionId,
      clientId: cliClientId,
      paint: out.paint,
      columns: out.columns,
      print,
      read: workspaceTextReader(workspace),
      ask,
      onInterrupt,
      ...(suspendKeys === undefined ? {} : { suspendKeys }),
    };
  }
}
