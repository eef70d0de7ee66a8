/** Whether a tool call's arguments can be handed to a tool. Pure. */

export type ArgumentsCheck = { ok: true } | { ok: false; problem: string };

/**
 * Arguments must be a JSON object. Anything else is kept in history as the model wrote it, but the
 * tool is not run: the call gets an is_error result that says why, so the model can retry.
 */
export function checkToolArguments(args: string): ArgumentsCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `the arguments were not valid JSON (${detail})` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { ok: false, problem: "the arguments were not a JSON object" };
  }
  return { ok: true };
}
