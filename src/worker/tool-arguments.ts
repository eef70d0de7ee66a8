/** Whether a tool call's arguments can be handed to a tool. Pure. */
import { parseToolArguments } from "../model/tool-arguments.js";

export type ArgumentsCheck = { ok: true } | { ok: false; problem: string };

/**
 * Arguments must be a JSON object. Anything else is kept in history as the model wrote it, but the
 * tool is not run: the call gets an is_error result that says why, so the model can retry.
 */
export function checkToolArguments(args: string): ArgumentsCheck {
  const parsed = parseToolArguments(args);
  switch (parsed.kind) {
    case "object":
      return { ok: true };
    case "not_object":
      return { ok: false, problem: "the arguments were not a JSON object" };
    case "invalid_json":
      return { ok: false, problem: `the arguments were not valid JSON (${parsed.detail})` };
  }
}
