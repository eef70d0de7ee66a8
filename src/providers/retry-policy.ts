/**
 * When and how long to wait before re-opening a stream: full-jitter exponential backoff,
 * overridden by the provider's Retry-After, bounded in attempts and in total time. Only
 * opening is ever retried (the caller stops retrying once content was delivered).
 *
 * Boundary rule: pure decisions plus one abortable sleep; no HTTP.
 */
import { LlmClientError } from "../model/llm-client.js";
import { unreachable } from "../model/unreachable.js";

/** Retry limits. `maxAttempts` counts the first attempt too. */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts if it would begin later than this after the first attempt started. */
  totalTimeMs: number;
}

/** The defaults: up to 4 attempts within a minute, backoff 0.5 s doubling up to 10 s. */
export const defaultRetryPolicy: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  totalTimeMs: 60_000,
};

/** Connection-level failures worth another try (the request never reached a model, or died before answering). */
const retryableSystemCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
  "incomplete_stream",
]);

/** Whether an HTTP status is transient: 408, 425, 429 and 5xx (529 included) except 501/505, which never heal. */
export function isRetryableStatus(status: number): boolean {
  if (status === 408 || status === 425 || status === 429) return true;
  return status >= 500 && status <= 599 && status !== 501 && status !== 505;
}

/** Whether a failure before any content was delivered may be retried. */
export function isRetryable(error: LlmClientError): boolean {
  switch (error.kind) {
    case "http":
      return error.status !== undefined && isRetryableStatus(error.status);
    case "network":
      return error.code !== undefined && retryableSystemCodes.has(error.code);
    case "api":
    case "protocol":
      return error.transient;
    case "timeout":
    case "aborted":
    case "config":
      return false;
    default:
      return unreachable(error.kind, "unknown LLM error kind");
  }
}

/**
 * The wait before the next attempt, or undefined to give up: attempts used up, or the wait
 * would end past the total time budget. Retry-After replaces the jittered backoff.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  failedAttempt: number,
  error: LlmClientError,
  elapsedMs: number,
  random: () => number = Math.random,
): number | undefined {
  if (failedAttempt >= policy.maxAttempts) return undefined;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  const delay = error.retryAfterMs ?? Math.floor(random() * ceiling);
  if (elapsedMs + delay > policy.totalTimeMs) return undefined;
  return delay;
}

/** Resolves after `ms`, or rejects with an "aborted" error as soon as `signal` aborts. */
export function sleepUnlessAborted(ms: number, signal: AbortSignal, provider: string): Promise<void> {
  const aborted = () =>
    new LlmClientError("aborted", provider, `${provider}: request aborted while waiting to retry`, {
      cause: signal.reason,
    });
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
