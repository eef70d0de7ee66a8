/**
 * A workspace's agent files: `.skein/agents/<name>.md`, YAML front matter between `---` lines
 * (the fields of agent-definition.ts but `prompt`) and a Markdown body, which is the prompt.
 *
 * Boundary rule: parsing never throws for the file's content: a file that is not an agent gives
 * an `AgentFileError` value naming the file and the reason, and the other files still count.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";
import { type AgentDefinition, isAgentName, parseAgentDefinition } from "./agent-definition.js";

/** Where a workspace keeps its agent files (relative to the workspace). */
export const agentDirectory = join(".skein", "agents");

/** The agents a workspace's files define, by name, and the files that define none. */
export interface AgentFiles {
  agents: Record<string, AgentDefinition>;
  errors: AgentFileError[];
}

/** Why an agent file does not define an agent. */
export class AgentFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`agent file ${file}: ${reason}`);
    this.name = "AgentFileError";
  }
}

/** The largest agent file read. */
const maxFileBytes = 128 * 1024;

/** The agent the text of file `file` (named `<name>.md`) defines, or why it defines none. */
export function parseAgentFile(file: string, name: string, text: string): AgentDefinition | AgentFileError {
  if (!isAgentName(name)) return new AgentFileError(file, `"${name}" is not an agent name`);
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (match === null)
    return new AgentFileError(file, "it does not start with front matter between --- lines");
  let front: unknown;
  try {
    // A warning (an unknown tag or directive) would otherwise go to the process's stderr, once
    // per read, and the value be guessed: the file is refused with it instead.
    const document = parseDocument(match[1]!, { logLevel: "silent" });
    const fault = document.errors[0] ?? document.warnings[0];
    if (fault !== undefined)
      return new AgentFileError(file, `its front matter is not YAML (${fault.message})`);
    front = document.toJS({ maxAliasCount: 16 });
  } catch (error) {
    return new AgentFileError(file, `its front matter is not YAML (${(error as Error).message})`);
  }
  if (typeof front !== "object" || front === null || Array.isArray(front))
    return new AgentFileError(file, "its front matter is not a mapping");
  if ("prompt" in front) return new AgentFileError(file, "the prompt is the body, not a front matter field");
  try {
    return parseAgentDefinition({ ...front, prompt: match[2]!.trim() }, "the agent", (reason) => {
      throw new AgentFileError(file, reason);
    });
  } catch (error) {
    if (error instanceof AgentFileError) return error;
    return new AgentFileError(file, (error as Error).message);
  }
}

/** The agents of `workspace`'s agent files, and the files that define none (absent directory: none). */
export function readAgentFiles(workspace: string): AgentFiles {
  const directory = join(workspace, agentDirectory);
  let names: string[];
  try {
    names = readdirSync(directory).filter((entry) => entry.endsWith(".md"));
  } catch {
    return { agents: Object.create(null), errors: [] };
  }
  return readAgentFileList(directory, names);
}

/** The agents the files `names` (`<name>.md`) of `directory` define, and the files that define none. */
export function readAgentFileList(directory: string, names: readonly string[]): AgentFiles {
  const agents: Record<string, AgentDefinition> = Object.create(null);
  const errors: AgentFileError[] = [];
  for (const entry of [...names].sort()) {
    const file = join(directory, entry);
    let text: string;
    try {
      const bytes = readFileSync(file);
      if (bytes.length > maxFileBytes) {
        errors.push(new AgentFileError(file, `it is larger than ${maxFileBytes} bytes`));
        continue;
      }
      text = bytes.toString("utf8");
    } catch (error) {
      errors.push(new AgentFileError(file, (error as Error).message));
      continue;
    }
    const parsed = parseAgentFile(file, entry.slice(0, -".md".length), text);
    if (parsed instanceof AgentFileError) errors.push(parsed);
    else agents[entry.slice(0, -".md".length)] = parsed;
  }
  return { agents, errors };
}
