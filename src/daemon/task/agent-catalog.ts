/**
 * The agents a session may delegate to: the built-in `general`, then config.json's `agents`,
 * then the workspace's `.skein/agents/*.md` (a later one replaces an earlier one of the same
 * name). A workspace file is the repository's word, not the user's: it may not loosen the
 * approval mode (only `read-only` or `ask`), so a cloned repository cannot make a child run
 * commands unasked; such a file is skipped and logged.
 *
 * Boundary rule: reads the workspace's agent files on each call (they are small and few);
 * decides nothing about running them.
 */
import { type AgentDefinition, generalAgent, generalAgentName } from "../../home/agent-definition.js";
import { readAgentFiles } from "../../home/agent-file.js";

/** Modes a workspace's agent file may set. */
const workspaceModes: ReadonlySet<string> = new Set(["read-only", "ask"]);

/** The agents of `workspace`, by name; `warn` hears of agent files that define none. */
export function agentCatalog(
  workspace: string,
  configured: Readonly<Record<string, AgentDefinition>> | undefined,
  warn: (file: string, reason: string) => void,
): Map<string, AgentDefinition> {
  const agents = new Map<string, AgentDefinition>([[generalAgentName, generalAgent]]);
  for (const [name, agent] of Object.entries(configured ?? {})) agents.set(name, agent);
  const files = readAgentFiles(workspace);
  for (const error of files.errors) warn(error.file, error.reason);
  for (const [name, agent] of Object.entries(files.agents)) {
    if (agent.mode !== undefined && !workspaceModes.has(agent.mode)) {
      warn(`${name}.md`, `a workspace agent may set "mode" only to read-only or ask, not ${agent.mode}`);
      continue;
    }
    agents.set(name, agent);
  }
  return agents;
}
