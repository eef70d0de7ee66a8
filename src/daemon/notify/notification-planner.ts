/**
 * Which webhook deliveries a commit owes: the events its entries and row writes are
 * (`approval_requested` for a tool call waiting for an answer, `question` for an `ask_user`
 * call, `turn_completed` for a turn's end completed or interrupted, `turn_failed` for one failed
 * or abandoned), one outbox row per event and
 * subscribed target, each with the exact body that will be posted. The body is fixed here, at
 * commit, so every retry posts the same bytes under the same id.
 *
 * `task_completed`: a subagent task ends with its `task` call's result (a `tool_results` item
 * whose call's tool is `taskTool`), committed in the parent's log.
 *
 * Boundary rule: pure over the commit and the configured targets; queueing is the commit's,
 * delivery is outbox-deliverer.ts's.
 */
import { randomUUID } from "node:crypto";
import type { NotificationEvent, NotificationTarget } from "../../home/notification-config.js";
import type { LogEntry } from "../../log/entries.js";
import type { ToolCallItem } from "../../model/items.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import type { NotificationPlanner } from "../session/session-services.js";
import type { NewNotification } from "../storage/outbox-table.js";
import type { RowWrites } from "../storage/session-storage.js";

/** One event a commit is, with what its payload's `data` says of it. */
interface CommitEvent {
  event: NotificationEvent;
  data: JsonObject;
}

/** The planner over the targets config.json lists now (`targets` is read at every commit). */
export function notificationPlanner(
  targets: () => readonly NotificationTarget[],
  taskTool: string,
): NotificationPlanner {
  return (sessionId, entries, writes, now, toolOf) => {
    const configured = targets();
    if (configured.length === 0) return [];
    const rows: NewNotification[] = [];
    const isTask = (callId: string) => (toolOf(callId) ?? callName(entries, callId)) === taskTool;
    for (const { event, data } of commitEvents(entries, writes, isTask)) {
      const subscribed = configured.filter((target) => target.events.includes(event));
      if (subscribed.length === 0) continue;
      const id = `evt_${randomUUID()}`;
      const body = JSON.stringify({
        id,
        event,
        session_id: sessionId,
        data,
        created_at: new Date(now).toISOString(),
      });
      for (const target of subscribed) {
        rows.push({ id, targetUrl: target.url, sessionId, event, body, createdAt: now });
      }
    }
    return rows;
  };
}

/** The events a commit of `entries` with `writes` is, in log order (a turn's end last). */
function commitEvents(
  entries: readonly LogEntry[],
  writes: RowWrites,
  isTask: (callId: string) => boolean,
): CommitEvent[] {
  const events: CommitEvent[] = [];
  for (const entry of entries) {
    if (entry.kind === "tool_results") {
      // A subagent task ends with its `task` call's result.
      for (const item of entry.items) {
        if (item.type !== "tool_result" || !isTask(item.call_id)) continue;
        const data = {
          call_id: item.call_id,
          turn_id: entry.turn_id ?? null,
          is_error: item.is_error === true,
        };
        events.push({ event: "task_completed", data });
      }
    }
    if (entry.kind !== "approval_requested") continue;
    const data: JsonObject = { call_id: entry.call_id, tool: entry.tool, turn_id: entry.turn_id ?? null };
    const args = callArguments(entries, entry.call_id);
    if (args !== undefined) data.arguments = args;
    events.push({ event: entry.rule.source === "ask_user" ? "question" : "approval_requested", data });
  }
  const end = writes.endTurn;
  if (end !== undefined) {
    const data = { turn_id: end.id, state: end.state, error: end.error };
    // An interrupted turn ended too (its `state` says how): whoever did not interrupt it learns
    // that the session now waits for input, its cut answer logged.
    if (end.state === "completed" || end.state === "interrupted")
      events.push({ event: "turn_completed", data });
    else if (end.state === "failed" || end.state === "abandoned") events.push({ event: "turn_failed", data });
  }
  return events;
}

/** The arguments of tool call `callId` when the same commit carries the call. */
function callArguments(entries: readonly LogEntry[], callId: string): JsonValue | undefined {
  return callIn(entries, callId)?.arguments;
}

/** The tool of call `callId` when the same commit carries the call, else null. */
function callName(entries: readonly LogEntry[], callId: string): string | null {
  return callIn(entries, callId)?.name ?? null;
}

function callIn(entries: readonly LogEntry[], callId: string): ToolCallItem | undefined {
  for (const entry of entries) {
    if (entry.kind !== "assistant_items") continue;
    for (const item of entry.items) {
      if (item.type === "tool_call" && item.call_id === callId) return item;
    }
  }
  return undefined;
}
