/**
 * A turn's run of the agent loop with compaction around it: before each request the context is
 * compacted if it has grown past the threshold (an interceptor's `inspectRequest`, composed with
 * any other), every response's usage feeds the context accounting (an observer's
 * `onRequestEnd`), and a run that the provider refused as too long is compacted and resumed once.
 *
 * Boundary rule: adds compaction to `resumeConversation` and nothing else; without compaction
 * hooks it is `resumeConversation` itself.
 */
import type { Item } from "../../model/items.js";
import type { Usage } from "../../model/usage.js";
import {
  type BeforeRequestAction,
  type ConversationRunEnd,
  type ConversationRunOptions,
  type Interceptor,
  resumeConversation,
  type WorkerObserver,
} from "../../worker/index.js";
import type { TurnCompaction } from "./compaction.js";

/** Resume the conversation with `compaction`'s hooks; on a "context too long" compact and resume once more. */
export async function resumeWithCompaction(
  compaction: TurnCompaction | undefined,
  options: ConversationRunOptions,
): Promise<ConversationRunEnd> {
  if (compaction === undefined) return resumeConversation(options);
  const signal = options.signal ?? new AbortController().signal;
  const run = (requestCount: number) =>
    resumeConversation({
      ...options,
      requestCount,
      interceptor: withCompaction(options.interceptor, compaction, signal),
      observer: withAccounting(options.observer, compaction),
    });
  const end = await run(options.requestCount);
  if (!("error" in end) || signal.aborted || !compaction.isOverflow(end.error.cause)) return end;
  if (!(await compaction.compactAfterOverflow(signal, end.error.cause))) return end;
  return run(end.requestCount);
}

/**
 * The compaction runs as `inspectRequest`: it only reads the history (to account for it) or
 * replaces it with the compacted one, so no request pays a deep copy of a long history for it.
 * Another interceptor's own `inspectRequest` runs after it, on what it chose.
 */
function withCompaction(
  inner: Interceptor | undefined,
  compaction: TurnCompaction,
  signal: AbortSignal,
): Interceptor {
  return {
    ...inner,
    inspectRequest: async (items: readonly Item[]): Promise<BeforeRequestAction> => {
      const compacted = await compaction.beforeRequest(items, signal);
      const next = inner?.inspectRequest;
      if (next === undefined)
        return compacted === undefined ? { action: "continue" } : { action: "continue", items: compacted };
      const sent = compacted ?? items;
      const action = await next.call(inner, sent);
      return action.action === "continue" && action.items === undefined && compacted !== undefined
        ? { action: "continue", items: compacted }
        : action;
    },
  };
}

function withAccounting(inner: WorkerObserver | undefined, compaction: TurnCompaction): WorkerObserver {
  return {
    ...inner,
    onRequestEnd: (request: number, usage: Usage) => {
      compaction.observeUsage(usage);
      inner?.onRequestEnd?.(request, usage);
    },
  };
}
