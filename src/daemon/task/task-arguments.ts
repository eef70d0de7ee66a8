/**
 * The arguments of a `task` call: `{agent, prompt, context?}`. Parsed by one function, which
 * names what is wrong so the model can correct its call.
 */
import { toolArgumentsObject } from "../../model/tool-arguments.js";
import { ToolError } from "../../model/tools.js";

/** Where a child starts: a copy of the parent's log at the call (`fork`) or only the agent's prompt (`fresh`). */
export type TaskContext = "fork" | "fresh";

/** A `task` call's arguments, checked. */
export interface TaskArguments {
  agent: string;
  prompt: string;
  context: TaskContext;
}

/** The most characters of a task's prompt. */
export const maxTaskPromptLength = 65_536;

/** The checked arguments of the call's text; throws an `invalid_argument` ToolError saying what is wrong. */
export function parseTaskArguments(text: string): TaskArguments {
  const args = toolArgumentsObject(text);
  if (args === null)
    throw new ToolError("invalid_argument", "task needs a JSON object {agent, prompt, context?}");
  const { agent, prompt, context } = args;
  if (typeof agent !== "string" || agent.trim() === "")
    throw new ToolError("invalid_argument", "task needs `agent`: the name of one of the agents listed");
  if (typeof prompt !== "string" || prompt.trim() === "")
    throw new ToolError("invalid_argument", "task needs `prompt`: the work to do, self-contained");
  if (prompt.length > maxTaskPromptLength)
    throw new ToolError("invalid_argument", `task's prompt is longer than ${maxTaskPromptLength} characters`);
  if (context !== undefined && context !== null && context !== "fork" && context !== "fresh")
    throw new ToolError("invalid_argument", 'task\'s `context` must be "fresh" (the default) or "fork"');
  return { agent: agent.trim(), prompt, context: context === "fork" ? "fork" : "fresh" };
}
