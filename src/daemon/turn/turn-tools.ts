/**
 * The tools one turn of a session offers its model: the session's own (built-in and MCP),
 * `ask_user`, then what the daemon's delegation makes of them (a child's agent narrows them,
 * `task` is added where the session may delegate).
 */
import type { ToolDefinition } from "../../model/tools.js";
import { askUserTool } from "../approval/ask-user-tool.js";
import type { SessionPort } from "../session/session-port.js";
import type { EventPublisher, SessionServices } from "../session/session-services.js";
import type { SessionRow } from "../storage/sessions-table.js";

/** What the turn's tools are made from. */
export type TurnToolServices = Pick<SessionServices, "tools" | "delegation">;

/**
 * The turn's tool definitions; `hold` publishes on the session's stream as the turn does (held
 * until its start is durable). Throws what `services.tools` throws (a refused workspace).
 */
export async function turnTools(
  services: TurnToolServices,
  session: SessionRow,
  port: Pick<SessionPort, "publish">,
  hold: (publish: () => void) => void,
): Promise<ToolDefinition[]> {
  const publish: EventPublisher = (type, data) => hold(() => port.publish(type, data));
  const own = [...(await services.tools(session)), askUserTool()];
  return services.delegation === undefined ? own : services.delegation.toolsFor(session, own, publish);
}
