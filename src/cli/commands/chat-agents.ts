/**
 * The chat's `/agents` and `/parent`: the session's `task` children (their agent, status,
 * tokens and task), numbered, and opening one of them, where the chat then goes on (its
 * recent history shown, what it streams followed live, a prompt typed there sent to it);
 * `/parent` goes back to the session whose task started the one the chat is in.
 *
 * Boundary rule: one listing or one switch per command; the children come from the session
 * listing (`GET /sessions?parent_id=`), switching is the chat's (chat.ts).
 */
import type { SessionSummary } from "../../api/session-snapshot.js";
import { errorMessage } from "../cli-error.js";
import { agentRow } from "../render/task-line.js";
import type { ChatEnd } from "./chat-end.js";
import { type PickerScope, pickedByNumberOrPrefix } from "./chat-pickers.js";

/** `/agents [N|ID]`: list the session's task children, or open the one picked. */
export async function pickAgent(
  scope: PickerScope,
  argument: string | undefined,
): Promise<ChatEnd | "continue"> {
  const { client, sessionId, view } = scope;
  let children: SessionSummary[];
  try {
    // Oldest first: the numbers stay put while more tasks start.
    children = (await client.listSessions({ parent_id: sessionId }))
      .filter((session) => session.agent !== null)
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  } catch (error) {
    view.notice(errorMessage(error));
    return "continue";
  }
  if (argument === undefined) {
    listAgents(scope, children);
    return "continue";
  }
  const picked = pickedByNumberOrPrefix(children, children, argument, { what: "agent", list: "/agents" });
  if (typeof picked === "string") {
    view.notice(picked);
    return "continue";
  }
  view.notice(`opening agent ${picked.agent}'s session ${picked.id} (/parent comes back)`);
  return { kind: "switch", sessionId: picked.id, resume: true };
}

/** The numbered rows of `/agents`, and how to open one. */
function listAgents(scope: PickerScope, children: readonly SessionSummary[]): void {
  const { view } = scope;
  if (children.length === 0) view.notice("no agents yet: the model starts one with its task tool");
  for (const [index, child] of children.entries()) view.line(agentRow(scope.out.paint, child, index + 1, 13));
  if (children.length > 0) view.notice("open one with /agents N (or an id prefix); /parent comes back here");
}

/** `/parent`: back to the session whose `task` call started this one. */
export async function backToParent(scope: PickerScope): Promise<ChatEnd | "continue"> {
  const { client, sessionId, view } = scope;
  try {
    const snapshot = await client.getSession(sessionId, 0);
    if (snapshot.agent === null || snapshot.parent_id === null) {
      view.notice("this session is not an agent's: it has no parent task");
      return "continue";
    }
    view.notice(`back to session ${snapshot.parent_id}`);
    return { kind: "switch", sessionId: snapshot.parent_id, resume: true };
  } catch (error) {
    view.notice(errorMessage(error));
    return "continue";
  }
}
