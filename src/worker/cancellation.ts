/** Racing a promise against an AbortSignal, so a run stops at once even if the awaited work does not. */

/**
 * Settles like `work`, unless `signal` aborts first: then rejects with `onAbort()`. The abandoned
 * `work` keeps running to its end but its outcome is ignored (never an unhandled rejection).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, onAbort: () => Error): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(onAbort());
  }
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(onAbort());
    signal.addEventListener("abort", abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      },
    );
  });
}

/** A readable reason from an AbortSignal's `reason` (a string, or an Error's message). */
export function abortReasonText(reason: unknown): string | undefined {
  if (typeof reason === "string") return reason;
  if (reason instanceof Error) return reason.message;
  return undefined;
}
