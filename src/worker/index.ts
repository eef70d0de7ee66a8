/** The agent Worker: the LLM + tools loop with interceptor hooks, a prompt-cache lock and cancellation. */
export { type AppendHint, type Conversation, MemoryConversation } from "./conversation.js";
export {
  type ConversationRunEnd,
  type ConversationRunOptions,
  resumeConversation,
} from "./conversation-run.js";
export {
  DuplicateToolNameError,
  WorkerError,
  type WorkerErrorKind,
  WorkerStateError,
  type WorkerStateErrorKind,
} from "./errors.js";
export type {
  AfterToolCallAction,
  Awaitable,
  BeforeRequestAction,
  BeforeToolCallAction,
  Interceptor,
  PromptSubmitAction,
  RunEndAction,
  ToolCallResult,
} from "./interceptor.js";
export type { CommitKind, WorkerObserver } from "./observer.js";
export { leavesRunInterrupted, type WorkerResult } from "./result.js";
export { NOT_RUN_OUTPUT } from "./run.js";
export { LockedWorker, type RunOptions, Worker, type WorkerOptions } from "./worker.js";
