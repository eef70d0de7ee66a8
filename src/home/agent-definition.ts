/**
 * Agents: named definitions a session's model may delegate work to with the `task` tool. One
 * shape for the three places an agent comes from: config.json's `agents` section, a workspace's
 * `.skein/agents/<name>.md` files (agent-file.ts) and the built-in `general` agent.
 *
 * `{"description", "prompt", "tools"?, "mode"?, "profile"?, "model"?}`: the description the
 * parent's model reads, the text added to the child session's system prompt, the tools the child
 * gets (absent: every tool the session would get; names as the model sees them), its approval
 * mode, provider profile and model (absent: the parent's).
 *
 * Boundary rule: the format only; the daemon (daemon/task/) decides what an agent does.
 */
import { approvalModes } from "../api/approval-modes.js";
import type { ApprovalMode } from "../model/approval-policy.js";

/** One agent as config.json or an agent file defines it. */
export interface AgentDefinition {
  description: string;
  prompt: string;
  /** The tools the child session gets; absent: all of the session's. */
  tools?: string[];
  mode?: ApprovalMode;
  profile?: string;
  model?: string;
}

/** The agent every daemon has, unless config.json or the workspace defines one of that name. */
export const generalAgentName = "general";

/** The built-in `general` agent: the parent's tools, provider and mode; a prompt that says what a sub-task is. */
export const generalAgent: Readonly<AgentDefinition> = Object.freeze({
  description:
    "A general-purpose agent: give it a self-contained piece of work (research, a change, a check); " +
    "it works with the same tools and reports back.",
  prompt:
    "You are a sub-agent: another agent gave you the task in the user's message. Do it with your tools, " +
    "then answer with a short report of what you found or did; that report is all the other agent reads.",
});

/** Agent names: 1-64 letters, digits, ".", "_" or "-" (a file name without `.md`). */
export function isAgentName(name: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(name);
}

const knownKeys = ["description", "prompt", "tools", "mode", "profile", "model"];

/** The most characters of an agent's prompt. */
const maxPromptLength = 65_536;

/**
 * Validate one agent's fields (`where` names it in reasons); `fail` throws with the reason.
 * The shape config.json and an agent file's front matter (with the body as `prompt`) share.
 */
export function parseAgentDefinition(
  value: unknown,
  where: string,
  fail: (reason: string) => never,
): AgentDefinition {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(`${where} must be an object`);
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !knownKeys.includes(key));
  if (unknown.length > 0)
    fail(`${where} has an unknown field "${unknown[0]}" (known: ${knownKeys.join(", ")})`);
  const text = (key: string, max: number): string | undefined => {
    const field = record[key];
    if (field === undefined) return undefined;
    if (typeof field !== "string" || field.trim() === "" || field.length > max)
      fail(`${where}: "${key}" must be a non-empty string of at most ${max} characters`);
    return field as string;
  };
  const description = text("description", 1024) ?? fail(`${where}: "description" is required`);
  const prompt = text("prompt", maxPromptLength) ?? fail(`${where}: "prompt" is required`);
  const definition: AgentDefinition = { description, prompt };
  if (record.tools !== undefined) definition.tools = toolNames(record.tools, where, fail);
  if (record.mode !== undefined) {
    if (!approvalModes.includes(record.mode as ApprovalMode))
      fail(`${where}: "mode" must be one of ${approvalModes.join(", ")}`);
    definition.mode = record.mode as ApprovalMode;
  }
  const profile = text("profile", 64);
  if (profile !== undefined) definition.profile = profile;
  const model = text("model", 256);
  if (model !== undefined) definition.model = model;
  return definition;
}

function toolNames(value: unknown, where: string, fail: (reason: string) => never): string[] {
  if (!Array.isArray(value) || value.length > 256) fail(`${where}: "tools" must be an array of tool names`);
  return (value as unknown[]).map((name, index) => {
    if (typeof name !== "string" || name === "" || name.length > 128)
      fail(`${where}: "tools"[${index}] must be a tool name`);
    return name as string;
  });
}

/** config.json's `agents` section: agent names to definitions; `fail` throws with the reason. */
export function parseAgentsConfig(
  value: unknown,
  fail: (reason: string) => never,
): Record<string, AgentDefinition> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(`"agents" must be an object of named agents`);
  // Null prototype: an agent named "__proto__" stays a plain key.
  const agents: Record<string, AgentDefinition> = Object.create(null);
  for (const [name, definition] of Object.entries(value as Record<string, unknown>)) {
    if (!isAgentName(name))
      fail(`agent name ${JSON.stringify(name)} must be 1-64 characters of letters, digits, ".", "_" or "-"`);
    agents[name] = parseAgentDefinition(definition, `agent "${name}"`, fail);
  }
  return agents;
}
