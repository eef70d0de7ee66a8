/**
 * Answering approvals from a terminal: which of a session's tool calls wait (kept from its
 * stream: the snapshot's `pending_approvals`, then `approval_requested` and `approval_resolved`
 * events), and a loop that shows each waiting call in turn, reads the person's answer and sends
 * it. A call answered elsewhere meanwhile (another client, an interrupt) stops its question.
 *
 * Boundary rule: the daemon decides; this only asks and sends. What a line means is
 * render/approval-prompt.ts; how a line is read (a terminal with Ctrl-C, or a pipe) is the
 * caller's `ask`.
 */
import { createInterface } from "node:readline";
import type { ApprovalAnswerBody, ApprovalRecord, PendingApproval } from "../api/approvals.js";
import { DaemonApiError } from "../client/api-errors.js";
import type { DaemonClient } from "../client/daemon-client.js";
import type { StreamBatch } from "../client/stream-batch.js";
import { unreachable } from "../model/unreachable.js";
import { describeFailure } from "./cli-error.js";
import { approvalQuestion, approvalRequestLines, parseApprovalAnswer } from "./render/approval-prompt.js";
import type { Paint } from "./render/terminal.js";

/** The name the CLI's decisions carry in the session's log. */
export const cliClientId = "skein";

/** A waiting call; `session_id` names the `task` child whose call it is (relayed to its parent's stream). */
export type WaitingCall = PendingApproval & { session_id?: string };

/** A waiting call's key: its call id, with the child's session for a relayed one (call ids repeat across sessions). */
export function waitingKey(request: Pick<WaitingCall, "call_id" | "session_id">): string {
  return request.session_id === undefined ? request.call_id : `${request.session_id}/${request.call_id}`;
}

/**
 * The tool calls of one session that wait for an answer, as its stream tells; with `relayed`,
 * also its `task` children's calls relayed to it (answered at the child's route). Those are
 * forgotten when their relayed `approval_resolved` comes (whoever answered), and at the latest
 * when their task, or the parent's turn, ends.
 */
export class PendingApprovals {
  readonly #pending = new Map<string, WaitingCall>();
  readonly #resolved = new Map<string, ApprovalRecord>();
  readonly #listeners = new Set<() => void>();

  constructor(private readonly options: { relayed?: boolean } = {}) {}

  /** Learn from one batch of the session's stream. */
  observe(batch: StreamBatch): void {
    if (batch.reset !== null) {
      this.#pending.clear();
      for (const request of batch.reset.snapshot.pending_approvals)
        this.#pending.set(request.call_id, request);
    }
    for (const event of batch.events) {
      if (event.type === "approval_requested") {
        // A relayed call of a `task` child (session_id set) is the child's: kept only when asked for.
        if (event.data.session_id === undefined || this.options.relayed === true)
          this.#pending.set(waitingKey(event.data), event.data);
      } else if (event.type === "approval_resolved") {
        this.#pending.delete(waitingKey(event.data));
        this.#resolved.set(waitingKey(event.data), event.data);
      } else if (event.type === "task_completed") {
        this.#forgetRelayed((request) => request.session_id === event.data.child_session_id);
      } else if (event.type === "turn_completed") {
        this.#forgetRelayed(() => true);
      }
    }
    this.#changed();
  }

  /** The waiting calls, oldest first. */
  list(): WaitingCall[] {
    return [...this.#pending.values()];
  }

  /** Whether the call with this key (`waitingKey`) waits. */
  has(key: string): boolean {
    return this.#pending.has(key);
  }

  /** How the call with this key (`waitingKey`) was answered, when this stream saw it. */
  resolution(key: string): ApprovalRecord | undefined {
    return this.#resolved.get(key);
  }

  /** The calls a `task` child waits on, looked up at the child (a reset's snapshot has only the session's own). */
  relayedFrom(childId: string, requests: readonly PendingApproval[]): void {
    if (this.options.relayed !== true) return;
    for (const request of requests) {
      const relayed = { ...request, session_id: childId };
      this.#pending.set(waitingKey(relayed), relayed);
    }
    this.#changed();
  }

  /** A relayed call was answered (at its child's route): it waits no more here. */
  answeredRelayed(request: WaitingCall): void {
    if (request.session_id === undefined) return;
    this.#pending.delete(waitingKey(request));
    this.#changed();
  }

  /** Call `listener` after every batch; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #forgetRelayed(which: (request: WaitingCall) => boolean): void {
    for (const [key, request] of this.#pending)
      if (request.session_id !== undefined && which(request)) this.#pending.delete(key);
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }
}

/** What reading one answer gave: a line, end of input, Ctrl-C, or nothing (the question was withdrawn). */
type AnswerLine =
  | { kind: "line"; text: string }
  | { kind: "eof" }
  | { kind: "interrupt" }
  | { kind: "withdrawn" };

export interface ApprovalDeskOptions {
  client: DaemonClient;
  sessionId: string;
  /** Named in the decisions this desk sends. */
  clientId: string;
  paint: Paint;
  columns: number;
  /** Print one line (between answers, never inside one). */
  print(line: string): void;
  /** The current text of a workspace file (for diffs), or null. */
  read(path: string): string | null;
  /** Read one answer line after showing `prompt`; `signal` withdraws the question. */
  ask(prompt: string, signal: AbortSignal): Promise<AnswerLine>;
  /** Ctrl-C at a question. */
  onInterrupt(): void;
  /** Give the terminal to the question: returns the function that takes it back. */
  suspendKeys?: () => () => void;
  /** Only calls this returns true for are asked (default: all). */
  filter?: (request: PendingApproval) => boolean;
}

/** A running desk: `stop` withdraws the open question and resolves once the loop has ended. */
export interface ApprovalDesk {
  stop(): Promise<void>;
}

/** Ask about each waiting call in turn, until stopped. */
export function serveApprovals(pending: PendingApprovals, options: ApprovalDeskOptions): ApprovalDesk {
  const stopping = new AbortController();
  // Calls asked already: an answer sent reaches this stream's pending list a moment later.
  const handled = new Set<string>();
  const next = (): WaitingCall | undefined =>
    pending
      .list()
      .find((request) => !handled.has(waitingKey(request)) && (options.filter?.(request) ?? true));
  const waitForRequest = (): Promise<WaitingCall | null> =>
    new Promise((resolve) => {
      const check = (): void => {
        const request = stopping.signal.aborted ? null : next();
        if (request === undefined) return;
        stop();
        resolve(request);
      };
      const unsubscribe = pending.onChange(check);
      const onStop = (): void => check();
      stopping.signal.addEventListener("abort", onStop);
      const stop = (): void => {
        unsubscribe();
        stopping.signal.removeEventListener("abort", onStop);
      };
      check();
    });

  const loop = (async () => {
    for (;;) {
      const request = await waitForRequest();
      if (request === null) return;
      const answered = await askOnce(request, pending, options, stopping.signal);
      handled.add(waitingKey(request));
      // After Ctrl-C the turn is being interrupted (which denies every waiting call): ask no more of them.
      if (answered === "interrupted") for (const waiting of pending.list()) handled.add(waitingKey(waiting));
    }
  })();
  return {
    stop: async () => {
      stopping.abort();
      await loop;
    },
  };
}

/** Show one request, read an answer and send it; "interrupted" when the person pressed Ctrl-C instead. */
async function askOnce(
  request: WaitingCall,
  pending: PendingApprovals,
  options: ApprovalDeskOptions,
  stopping: AbortSignal,
): Promise<"done" | "interrupted"> {
  const { paint } = options;
  const key = waitingKey(request);
  if (request.session_id !== undefined)
    options.print(
      paint.dim(`a task's agent asks (its session ${request.session_id}; the answer goes there):`),
    );
  for (const line of approvalRequestLines(paint, request, options.read, options.columns)) options.print(line);
  for (;;) {
    const withdraw = new AbortController();
    const onStop = (): void => withdraw.abort();
    stopping.addEventListener("abort", onStop);
    const unsubscribe = pending.onChange(() => {
      if (!pending.has(key)) withdraw.abort();
    });
    if (stopping.aborted || !pending.has(key)) withdraw.abort();
    const resume = options.suspendKeys?.();
    let result: AnswerLine;
    try {
      result = await options.ask(approvalQuestion(paint, request), withdraw.signal);
    } finally {
      resume?.();
      unsubscribe();
      stopping.removeEventListener("abort", onStop);
    }
    switch (result.kind) {
      case "withdrawn": {
        const record = pending.resolution(key);
        if (record !== undefined) options.print(paint.dim(`  ${describeRecord(record)}`));
        return "done";
      }
      case "interrupt":
        options.onInterrupt();
        return "interrupted";
      case "eof":
        // Nothing denies an unknown outcome: it keeps waiting for someone who knows.
        if (request.kind !== "unknown_outcome") {
          await send(request, { decision: "deny" }, options);
          pending.answeredRelayed(request);
        }
        return "done";
      case "line": {
        const body = parseApprovalAnswer(request, result.text);
        if (body === null) continue;
        await send(request, body, options);
        pending.answeredRelayed(request);
        return "done";
      }
      default:
        unreachable(result, "unknown answer");
    }
  }
}

async function send(
  request: WaitingCall,
  body: Omit<ApprovalAnswerBody, "client_id">,
  options: ApprovalDeskOptions,
): Promise<void> {
  try {
    // A relayed call is answered at its child's route.
    const record = await options.client.answerApproval(
      request.session_id ?? options.sessionId,
      request.call_id,
      {
        ...body,
        client_id: options.clientId,
      },
    );
    options.print(options.paint.dim(`  ${describeRecord(record)}`));
  } catch (error) {
    // Not thrown on: the desk's loop is awaited only at its stop, so a daemon gone away here
    // would be an unhandled rejection.
    const reason = error instanceof DaemonApiError ? error.detail : describeFailure(error).message;
    options.print(options.paint.yellow(`  not recorded: ${reason}`));
  }
}

const verbs: Record<ApprovalRecord["decision"], string> = {
  allow: "allowed",
  deny: "denied",
  retry: "run again",
  skip: "skipped (not run)",
  done: "marked done",
};

/** `allowed`, `denied (message)`, `allowed for the rest of the session`, with who answered. */
export function describeRecord(record: ApprovalRecord): string {
  const verb = verbs[record.decision];
  const always = record.remember === null ? "" : " (and remembered for this session)";
  const who =
    record.by === "client"
      ? record.client_id === null
        ? ""
        : ` by ${record.client_id}`
      : record.by === "rule"
        ? " by a remembered rule"
        : record.by === "interrupt"
          ? " by the interrupt"
          : " as the turn ended";
  return `${verb}${always}${who}${record.message === null ? "" : `: ${record.message}`}`;
}

/** An `ask` that reads one line from a terminal with its own readline (Ctrl-C: interrupt, Ctrl-D: eof). */
export function terminalAsk(
  input: NodeJS.ReadStream,
  output: NodeJS.WriteStream,
): ApprovalDeskOptions["ask"] {
  return (prompt, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) {
        resolve({ kind: "withdrawn" });
        return;
      }
      const rl = createInterface({ input, output, terminal: true });
      let settled = false;
      const finish = (result: AnswerLine): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        rl.close();
        resolve(result);
      };
      const onAbort = (): void => {
        output.write("\n");
        finish({ kind: "withdrawn" });
      };
      signal.addEventListener("abort", onAbort, { once: true });
      rl.on("line", (line) => finish({ kind: "line", text: line }));
      rl.on("SIGINT", () => {
        output.write("^C\n");
        finish({ kind: "interrupt" });
      });
      rl.on("close", () => finish({ kind: "eof" }));
      rl.setPrompt(prompt);
      rl.prompt();
    });
}

/**
 * Allow every waiting call `filter` selects as soon as it is seen (`skein run --approve`), except
 * `ask_user` questions and unknown outcomes, which need a person. `report` is told each decision or failure.
 * Returns the function that stops it.
 */
export function approveAutomatically(
  pending: PendingApprovals,
  options: {
    client: DaemonClient;
    sessionId: string;
    clientId: string;
    filter: (request: PendingApproval) => boolean;
    report: (request: PendingApproval, outcome: ApprovalRecord | Error) => void;
  },
): () => void {
  const sent = new Set<string>();
  const check = (): void => {
    for (const request of pending.list()) {
      if (sent.has(request.call_id) || request.tool === "ask_user" || request.kind === "unknown_outcome")
        continue;
      if (!options.filter(request)) continue;
      sent.add(request.call_id);
      options.client
        .answerApproval(options.sessionId, request.call_id, {
          decision: "allow",
          client_id: options.clientId,
        })
        .then(
          (record) => options.report(request, record),
          (error: unknown) =>
            options.report(request, error instanceof Error ? error : new Error(String(error))),
        );
    }
  };
  const stop = pending.onChange(check);
  check();
  return stop;
}
