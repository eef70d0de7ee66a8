/**
 * What a terminal shows of a `task` call's child session: the live line while it works (agent,
 * prompt, elapsed time), the notices when it starts and ends (with its tokens), and its row in
 * the chat's `/agents` list.
 *
 * Boundary rule: pure formatting; where the facts come from is the caller's (the parent's stream
 * for the live line and notices, the session listing for `/agents`).
 */
import type { SessionEvent, SessionEventData } from "../../api/session-events.js";
import type { SessionSummary } from "../../api/session-snapshot.js";
import { tokenCount } from "./session-table.js";
import type { Paint } from "./terminal.js";
import { clip, oneLine } from "./text-shape.js";

/** A task under way, as the parent's stream told it. */
export interface RunningTask {
  callId: string;
  childId: string;
  agent: string;
  /** The task's prompt (empty when its call was not seen). */
  prompt: string;
  startedAt: number;
}

/** The live line of a running task: `↳ alpha · find the config loader · 4.2 s · 1.2k tokens`. */
export function taskLiveLine(paint: Paint, task: RunningTask, now: number, width = 100, tokens = 0): string {
  const elapsed = `${(Math.max(0, now - task.startedAt) / 1000).toFixed(1)} s`;
  const used = tokens > 0 ? ` · ${tokenCount(tokens)} tokens` : "";
  const prompt = task.prompt === "" ? "" : ` · ${clip(oneLine(task.prompt), Math.max(10, width - 40))}`;
  return `${paint.cyan("↳")} ${paint.bold(task.agent)}${paint.dim(`${prompt} · ${elapsed}${used}`)}`;
}

/** The notices of a session's `task` events, remembering each call's agent for the notice of its end. */
export class TaskNotices {
  readonly #agents = new Map<string, string>();

  /** The notice for one `task_started` or `task_completed` event. */
  notice(event: Extract<SessionEvent, { type: "task_started" | "task_completed" }>): string {
    if (event.type === "task_started") {
      this.#agents.set(event.data.call_id, event.data.agent);
      return taskStartedNotice(event.data);
    }
    return taskEndedNotice(event.data, this.#agents.get(event.data.call_id) ?? null);
  }
}

/** The notice when a task starts: which agent, in which session, and how to open it. */
function taskStartedNotice(started: SessionEventData["task_started"]): string {
  return `↳ agent ${started.agent} is working in session ${started.child_session_id.slice(0, 13)} (/agents opens it)`;
}

/** The notice when a task ends: how, and the tokens its child used. */
function taskEndedNotice(ended: SessionEventData["task_completed"], agent: string | null): string {
  const tokens = tokenCount(ended.usage.total_tokens);
  return `↳ agent ${agent ?? "(unknown)"} ${ended.state} · ${tokens === "-" ? "0" : tokens} tokens (session ${ended.child_session_id.slice(0, 13)})`;
}

/** A child's row in `/agents`: number, id prefix, agent, status, tokens, the task's prompt. */
export function agentRow(paint: Paint, child: SessionSummary, number: number, idWidth: number): string {
  const phase = child.status.phase;
  const shown = phase.padEnd(7);
  const status =
    phase === "idle" ? paint.dim(shown) : phase === "waiting" ? paint.yellow(shown) : paint.green(shown);
  return [
    String(number).padStart(2),
    paint.cyan(child.id.slice(0, idWidth)),
    paint.bold(child.agent ?? "-"),
    status,
    paint.dim(`${child.usage.total_tokens === 0 ? "0" : tokenCount(child.usage.total_tokens)} tokens`),
    clip(oneLine(child.preview.text), 60),
  ].join("  ");
}
