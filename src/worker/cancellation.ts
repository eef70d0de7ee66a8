/** Cancellation helpers of a run. */

/** A readable reason from an AbortSignal's `reason` (a string, or an Error's message). */
export function abortReasonText(reason: unknown): string | undefined {
  if (typeof reason === "string") return reason;
  if (reason instanceof Error) return reason.message;
  return undefined;
}
