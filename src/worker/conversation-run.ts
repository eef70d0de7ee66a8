/**
 * One run of the agent loop over a conversation its owner keeps (the daemon's session: the
 * replay of its log): plain data in, the loop's end out. Nothing is copied: the loop reads the
 * owner's history and grows it only through `conversation.append`.
 *
 * Boundary rule: the library's `Worker` facade and this function drive the same `WorkerRun`; a
 * failure of the model, a tool, a hook or the conversation comes back as `{ error }` (a
 * `WorkerError`), and only a bug throws.
 */
import type { LlmClient } from "../model/llm-client.js";
import type { RequestConfig } from "../model/request-config.js";
import type { ToolDefinition } from "../model/tools.js";
import type { Conversation } from "./conversation.js";
import { WorkerError } from "./errors.js";
import type { Interceptor } from "./interceptor.js";
import type { WorkerObserver } from "./observer.js";
import type { WorkerResult } from "./result.js";
import { WorkerRun } from "./run.js";
import { WorkerCore } from "./worker-core.js";

/** Everything one run needs; the conversation is the owner's. */
export interface ConversationRunOptions {
  client: LlmClient;
  conversation: Conversation;
  tools: readonly ToolDefinition[];
  systemPrompt: string | null;
  requestConfig: RequestConfig;
  /** LLM requests the conversation has had so far (the count goes on from here). */
  requestCount: number;
  /** Stop with `limit_reached` once the count reaches this (null: no limit). */
  maxRequests?: number | null;
  interceptor?: Interceptor;
  observer?: WorkerObserver;
  /** Times reasoning (see WorkerOptions.clock). */
  clock?: () => number;
  signal?: AbortSignal;
}

/** How the run ended, with the request count reached either way. */
export type ConversationRunEnd =
  | { result: WorkerResult; requestCount: number; interrupted: boolean }
  | { error: WorkerError; requestCount: number; interrupted: true };

/**
 * Resume the conversation: run the tool calls it left pending, then request and act until the
 * model answers without tool calls (or a pause, yield, limit or failure).
 */
export async function resumeConversation(options: ConversationRunOptions): Promise<ConversationRunEnd> {
  const core = new WorkerCore(
    options.client,
    options.interceptor ?? {},
    options.observer ?? {},
    options.clock ?? null,
    options.conversation,
  );
  core.systemPrompt = options.systemPrompt;
  core.requestConfig = structuredClone(options.requestConfig);
  core.requestCount = options.requestCount;
  core.maxRequests = options.maxRequests ?? null;
  for (const tool of options.tools) core.tools.register(tool);
  core.tools.materialise();
  const run = new WorkerRun(core, options.signal);
  try {
    const result = await run.resume();
    return { result, requestCount: core.requestCount, interrupted: core.lastRunInterrupted };
  } catch (error) {
    if (!(error instanceof WorkerError)) throw error;
    return { error, requestCount: core.requestCount, interrupted: true };
  }
}
