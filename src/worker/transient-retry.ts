/**
 * One more try for a response the provider broke off with a temporary failure (overloaded,
 * server error, unavailable: `LlmClientError.transient`) after content had already streamed.
 * The client retries such failures itself while nothing but the response's start arrived;
 * past that point only the Worker can, because only it can drop what was received: each
 * attempt gets a fresh collector, so the partial response is discarded whole (nothing of it
 * was committed). The observer sees a `retry` event between the attempts, its cue to discard
 * the partial text it showed.
 *
 * Boundary rule: the retry decision and loop only; the attempt itself is the caller's.
 */
import type { StreamEvent } from "../model/events.js";
import { LlmClientError } from "../model/llm-client.js";
import { WorkerError } from "./errors.js";

/** Attempts per response, the first included. */
const maxResponseAttempts = 2;

/** The wait before the second attempt, unless the provider named one. */
const transientRetryDelayMs = 500;

/** How an attempt's owner reports the retry and waits (cancellably). */
export interface RetryHooks {
  notice(event: StreamEvent): void;
  wait(ms: number): Promise<void>;
}

/** The provider error behind a failed attempt, when it is a temporary one. */
function transientCause(error: unknown): LlmClientError | undefined {
  const cause = error instanceof WorkerError && error.kind === "client" ? error.cause : undefined;
  return cause instanceof LlmClientError && cause.transient ? cause : undefined;
}

/** Runs `attempt`, once more after a transient provider failure. */
export async function withTransientRetry<T>(attempt: () => Promise<T>, hooks: RetryHooks): Promise<T> {
  for (let number = 1; ; number++) {
    try {
      return await attempt();
    } catch (error) {
      const cause = transientCause(error);
      if (cause === undefined || number >= maxResponseAttempts) throw error;
      const delay = cause.retryAfterMs ?? transientRetryDelayMs;
      hooks.notice({
        type: "retry",
        retry: { attempt: number, max_attempts: maxResponseAttempts, delay_ms: delay, reason: cause.message },
      });
      await hooks.wait(delay);
    }
  }
}
