/**
 * `ask_user`: the model asks the person a question and waits for the answer, which becomes the
 * tool's result. The call takes the approval path (a logged request, the snapshot's
 * `pending_approvals`, the answer route, crash safety): an `allow` answer's `message` is the
 * answer, a `deny` says the person declined.
 *
 * Boundary rule: the definition only. The turn's approval gate answers every call before a tool
 * would run, so `execute` is reached only where no gate is in place, and then says so.
 */
import type { ToolDefinition, ToolMeta } from "../../model/tools.js";
import { ToolError } from "../../model/tools.js";
import { argumentsSchema, textArgument } from "../../tools/argument-schema.js";
import { askUserToolName } from "./approval-policy.js";

const inputSchema = argumentsSchema({ question: textArgument("The question, as the user will read it.") }, [
  "question",
]);

const meta: ToolMeta = {
  name: askUserToolName,
  description:
    "Ask the user a question and wait for the answer; the result is their reply. Use it for a decision " +
    "or information only the user has; do not use it for things you can find out with the other tools.",
  input_schema: inputSchema,
};

/** The `ask_user` tool of a daemon session. */
export function askUserTool(): ToolDefinition {
  return () => ({
    meta,
    tool: {
      execute: () =>
        Promise.reject(new ToolError("internal", "ask_user needs a client to answer it; none is connected")),
    },
  });
}

/** The question of an `ask_user` call's arguments, or null when they hold none. */
export function questionOf(args: Readonly<Record<string, unknown>>): string | null {
  const question = args.question;
  return typeof question === "string" && question.trim() !== "" ? question : null;
}
