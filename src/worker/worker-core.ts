/**
 * The state a run works with: shared by the Worker's two facades (`Worker` while mutable,
 * `LockedWorker` while locked), or built for one run over an owner's conversation
 * (`resumeConversation`). There is exactly one history (the conversation's), one tool registry
 * and at most one run at a time.
 *
 * Boundary rule: plain state, no behaviour beyond its own invariants; the facades guard who may
 * change what, and `WorkerRun` is the only code that appends to history while locked.
 */
import type { LlmClient } from "../model/llm-client.js";
import { defaultRequestConfig, type RequestConfig } from "../model/request-config.js";
import { type Conversation, MemoryConversation } from "./conversation.js";
import type { Interceptor } from "./interceptor.js";
import type { WorkerObserver } from "./observer.js";
import { ToolRegistry } from "./tool-registry.js";

/** The run in progress, as far as the state needs to know it: something to cancel. */
export interface ActiveRun {
  cancel(reason?: string): void;
}

export class WorkerCore {
  readonly client: LlmClient;
  readonly tools = new ToolRegistry();
  systemPrompt: string | null = null;
  requestConfig: RequestConfig = defaultRequestConfig();
  /** The history the runs read and grow: in memory for the Worker facade, the owner's otherwise. */
  conversation: Conversation;
  requestCount = 0;
  maxRequests: number | null = null;
  lastRunInterrupted = false;
  interceptor: Interceptor;
  observer: WorkerObserver;
  locked = false;
  /** Bumped by every lock, so a LockedWorker from an earlier lock can tell it is stale. */
  lockGeneration = 0;
  lockedPrefixLen = 0;
  activeRun: ActiveRun | null = null;
  /** Times reasoning (ms, e.g. `performance.now`); null: reasoning items get no `duration_ms`. */
  readonly clock: (() => number) | null;

  constructor(
    client: LlmClient,
    interceptor: Interceptor,
    observer: WorkerObserver,
    clock: (() => number) | null = null,
    conversation?: Conversation,
  ) {
    this.conversation = conversation ?? new MemoryConversation(() => this.observer);
    this.client = client;
    this.interceptor = interceptor;
    this.observer = observer;
    this.clock = clock;
  }
}
