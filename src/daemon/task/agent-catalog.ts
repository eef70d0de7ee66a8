/**
 * The agents a session may delegate to: the built-in `general`, then config.json's `agents`,
 * then the workspace's `.skein/agents/*.md` (a later one replaces an earlier one of the same
 * name). A workspace file is the repository's word, not the user's: it may not loosen the
 * approval mode (only `read-only` or `ask`), so a cloned repository cannot make a child run
 * commands unasked; such a file is skipped and logged.
 *
 * Boundary rule: every turn asks, and is told what the files and config.json say now; the
 * files are read again only when they changed (home/agent-files-cache.ts) and the catalog is
 * made again only when they or config.json's `agents` did, so a turn that changed nothing gets
 * the same catalog object. Decides nothing about running the agents.
 */
import { type AgentDefinition, generalAgent, generalAgentName } from "../../home/agent-definition.js";
import type { AgentFiles } from "../../home/agent-file.js";
import { AgentFilesCache } from "../../home/agent-files-cache.js";

/** Modes a workspace's agent file may set. */
const workspaceModes: ReadonlySet<string> = new Set(["read-only", "ask"]);

/** config.json's `agents`. */
type ConfiguredAgents = Readonly<Record<string, AgentDefinition>> | undefined;

/** A catalog as made, with what it was made from and the warnings its files gave. */
interface MadeCatalog {
  files: AgentFiles;
  configured: ConfiguredAgents;
  agents: ReadonlyMap<string, AgentDefinition>;
  warnings: { file: string; reason: string }[];
}

/** The agents of `files` over `configured`, and why files were skipped. */
function makeCatalog(files: AgentFiles, configured: ConfiguredAgents): MadeCatalog {
  const agents = new Map<string, AgentDefinition>([[generalAgentName, generalAgent]]);
  const warnings = files.errors.map((error) => ({ file: error.file, reason: error.reason }));
  for (const [name, agent] of Object.entries(configured ?? {})) agents.set(name, agent);
  for (const [name, agent] of Object.entries(files.agents)) {
    if (agent.mode !== undefined && !workspaceModes.has(agent.mode)) {
      warnings.push({
        file: `${name}.md`,
        reason: `a workspace agent may set "mode" only to read-only or ask, not ${agent.mode}`,
      });
      continue;
    }
    agents.set(name, agent);
  }
  return { files, configured, agents, warnings };
}

/** The agent catalogs of a daemon's workspaces. */
export class AgentCatalogs {
  readonly #files = new AgentFilesCache();
  readonly #made = new WeakMap<AgentFiles, MadeCatalog>();

  /**
   * The agents of `workspace` over `configured`, by name (the same map while neither changed);
   * `warn` hears of agent files that define none, on every call.
   */
  of(
    workspace: string,
    configured: ConfiguredAgents,
    warn: (file: string, reason: string) => void,
  ): ReadonlyMap<string, AgentDefinition> {
    const files = this.#files.read(workspace);
    let made = this.#made.get(files);
    if (made === undefined || made.configured !== configured) {
      made = makeCatalog(files, configured);
      this.#made.set(files, made);
    }
    for (const { file, reason } of made.warnings) warn(file, reason);
    return made.agents;
  }
}
