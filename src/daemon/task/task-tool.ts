/**
 * `task`: the model hands a self-contained piece of work to an agent, which does it in a child
 * session of its own; the call's result is the agent's final answer. Several calls in one
 * response run in parallel (the worker runs a batch's calls together), up to the limits.
 *
 * Boundary rule: the definition (name, description listing the agents, schema) and argument
 * checks; task-run.ts does the work.
 */
import type { AgentDefinition } from "../../home/agent-definition.js";
import { cachedEntry } from "../../model/cached-entry.js";
import type { ToolDefinition, ToolMeta } from "../../model/tools.js";
import { ToolError } from "../../model/tools.js";
import { argumentsSchema, textArgument } from "../../tools/argument-schema.js";
import { taskToolName } from "../approval/approval-policy.js";
import type { EventPublisher } from "../session/session-services.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { maxTaskPromptLength, parseTaskArguments } from "./task-arguments.js";
import { runTask } from "./task-run.js";
import type { TaskServices } from "./task-services.js";

/** The tool's description: what it does, then each agent's name and description. */
function description(agents: ReadonlyMap<string, AgentDefinition>): string {
  const listed = [...agents].map(([name, agent]) => `- ${name}: ${agent.description}`).join("\n");
  return (
    "Delegate a self-contained piece of work to an agent. It works in a session of its own with its own " +
    'tools and returns its final answer as this call\'s result; it sees only your prompt (context "fresh", ' +
    'the default) or also this conversation so far (context "fork"). Several task calls in one response run ' +
    `in parallel. Agents:\n${listed}`
  );
}

/**
 * The tool's meta per agent catalog: a catalog is the same object while its agents are
 * (agent-catalog.ts), and what is derived from a meta (its request JSON, its token estimate)
 * is kept per meta object.
 */
const metas = new WeakMap<ReadonlyMap<string, AgentDefinition>, ToolMeta>();

function meta(agents: ReadonlyMap<string, AgentDefinition>): ToolMeta {
  return cachedEntry(metas, agents, () => ({
    name: taskToolName,
    description: description(agents),
    input_schema: argumentsSchema(
      {
        agent: { type: "string", enum: [...agents.keys()], description: "The agent to give the work to." },
        prompt: textArgument("The work to do, with everything the agent needs to know.", {
          maxLength: maxTaskPromptLength,
        }),
        context: {
          type: "string",
          enum: ["fresh", "fork"],
          description:
            'What the agent starts from: "fresh" (only the prompt; default) or "fork" (this conversation).',
        },
      },
      ["agent", "prompt"],
    ),
  }));
}

/** The `task` tool of one turn of `parent`, offering `agents`. */
export function taskTool(
  services: TaskServices,
  parent: SessionRow,
  agents: ReadonlyMap<string, AgentDefinition>,
  publish: EventPublisher,
): ToolDefinition {
  const made = meta(agents);
  return () => ({
    meta: made,
    tool: {
      execute: (inputJson, context) => {
        const args = parseTaskArguments(inputJson);
        const agent = agents.get(args.agent);
        if (agent === undefined) {
          throw new ToolError(
            "invalid_argument",
            `there is no agent "${args.agent}"; the agents are: ${[...agents.keys()].join(", ")}`,
          );
        }
        return runTask(services, {
          parent,
          callId: context.call_id,
          args,
          agent,
          publish,
          signal: context.signal,
        });
      },
    },
  });
}

/**
 * The `task` of a session that may not delegate now: not offered to the model (unlisted), and
 * a call of it (the model guessed the name, or remembered it from a fork's history) is answered
 * with `reason` as an error result, changing nothing.
 */
export function refusedTaskTool(reason: string): ToolDefinition {
  const made: ToolMeta = {
    name: taskToolName,
    description: reason,
    input_schema: argumentsSchema({}, []),
    unlisted: true,
  };
  return () => ({
    meta: made,
    tool: { execute: () => Promise.resolve({ output: `task was not run: ${reason}.`, is_error: true }) },
  });
}
