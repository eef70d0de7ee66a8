/**
 * The daemon's delegation (the `Delegation` a session's turn asks for its tools): a session
 * gets `task` while its depth is below `maxTaskDepth` (a session no task made has depth 0, its
 * children 1, …), and a child gets only the tools its agent lists (`ask_user` and all, by the
 * names the model sees; an agent without a list gets all of the session's). A session that may
 * not delegate gets an unlisted `task` instead, whose every call answers why (e.g. the depth
 * limit), so a model that calls it anyway learns that rather than "Tool not found".
 *
 * Boundary rule: decides which tools a turn offers; task-run.ts runs the calls.
 */
import type { ToolDefinition } from "../../model/tools.js";
import { taskToolName } from "../approval/approval-policy.js";
import type { Delegation } from "../session/session-services.js";
import type { SessionRow } from "../storage/sessions-table.js";
import { AgentCatalogs } from "./agent-catalog.js";
import type { TaskServices } from "./task-services.js";
import { refusedTaskTool, taskTool } from "./task-tool.js";

/** How far up a chain of parents depth is counted (a longer chain counts as this deep). */
const depthHorizon = 16;

/** The delegation of a daemon whose parts are `services`. */
export function delegationOf(services: TaskServices): Delegation {
  const catalogs = new AgentCatalogs();
  return {
    async toolsFor(session, offered, publish): Promise<ToolDefinition[]> {
      const settings = services.settings();
      const agents = catalogs.of(session.workspace, settings.agents, (file, reason) =>
        services.logger.warn({ session_id: session.id, file, reason }, "agent file skipped"),
      );
      let tools = offered;
      let allowed: ReadonlySet<string> | null = null;
      if (session.task !== null) {
        const list = agents.get(session.task.agent)?.tools;
        if (list !== undefined) {
          allowed = new Set(list);
          const made = offered.map((definition) => definition());
          tools = made.filter((tool) => allowed!.has(tool.meta.name)).map((tool) => () => tool);
        }
      }
      const refused = await whyNoTask(services, settings, session, allowed);
      return [
        ...tools,
        refused === null ? taskTool(services, session, agents, publish) : refusedTaskTool(refused),
      ];
    },
  };
}

/** Why `session` may not delegate now (said to a model that calls `task` anyway), or null when it may. */
async function whyNoTask(
  services: TaskServices,
  settings: ReturnType<TaskServices["settings"]>,
  session: SessionRow,
  allowed: ReadonlySet<string> | null,
): Promise<string | null> {
  const { maxParallelTasks, maxTaskDepth } = settings;
  if (maxParallelTasks <= 0) return "delegation is turned off (maxParallelTasks is 0): do the work yourself";
  if (allowed !== null && !allowed.has(taskToolName))
    return `agent ${session.task?.agent ?? ""} may not delegate (its tools do not include task): do the work yourself`;
  const depth = await depthOf(services, session);
  if (depth >= maxTaskDepth) {
    return (
      `task depth limit ${maxTaskDepth} reached: this session is ${depth} task call(s) deep, ` +
      "so it cannot delegate further; do the work yourself"
    );
  }
  return null;
}

/** How many `task` calls deep `session` is. */
async function depthOf(services: TaskServices, session: SessionRow): Promise<number> {
  let depth = 0;
  let row: SessionRow | null = session;
  while (row !== null && row.task !== null && row.parentId !== null && depth < depthHorizon) {
    depth++;
    row = await services.storage.getSession(row.parentId);
  }
  return depth;
}
