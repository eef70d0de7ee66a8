/**
 * The `task` calls of the chat's session that run now, from its stream: a `tool` event gives a
 * call's prompt, `task_started` starts the task's live line and `task_completed` ends it (so
 * does the turn's end, and a daemon restart, after which the recovery turn starts them again).
 * A child's tokens so far come from the session listing (`noteChildren`): the parent's stream
 * tells them only when the task ends.
 *
 * Boundary rule: state only; the lines are render/task-line.ts's and where they are drawn is
 * the chat's (above its prompt, see chat-notes.ts).
 */
import type { SessionSummary } from "../api/session-snapshot.js";
import type { StreamBatch } from "../client/stream-batch.js";
import { toolArgumentsObject } from "../model/tool-arguments.js";
import { type RunningTask, taskLiveLine } from "./render/task-line.js";
import type { Paint } from "./render/terminal.js";

/** The running tasks of one session. */
export class ChatTasks {
  /** The prompt of each `task` call seen starting (by call id). */
  readonly #prompts = new Map<string, string>();
  readonly #running = new Map<string, RunningTask>();
  /** Each child's tokens as last listed, by child session id. */
  readonly #tokens = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Learn from one batch of the session's stream. */
  observe(batch: StreamBatch): void {
    if (batch.reset?.reason === "generation_changed") this.#running.clear();
    for (const event of batch.events) {
      switch (event.type) {
        case "tool":
          if (event.data.name === "task" && event.data.result === null) {
            const prompt = toolArgumentsObject(event.data.arguments)?.prompt;
            this.#prompts.set(event.data.tool_call_id, typeof prompt === "string" ? prompt : "");
          }
          break;
        case "task_started":
          this.#running.set(event.data.call_id, {
            callId: event.data.call_id,
            childId: event.data.child_session_id,
            agent: event.data.agent,
            prompt: this.#prompts.get(event.data.call_id) ?? "",
            startedAt: this.#running.get(event.data.call_id)?.startedAt ?? this.now(),
          });
          break;
        case "task_completed":
          this.#running.delete(event.data.call_id);
          this.#prompts.delete(event.data.call_id);
          break;
        case "turn_completed":
          this.#running.clear();
          this.#prompts.clear();
          break;
        default:
          break;
      }
    }
  }

  /** The session's children as listed now: their tokens so far. */
  noteChildren(children: readonly SessionSummary[]): void {
    for (const child of children) this.#tokens.set(child.id, child.usage.total_tokens);
  }

  /** The tasks running now, oldest first. */
  get running(): readonly RunningTask[] {
    return [...this.#running.values()];
  }

  /** One live line per running task. */
  lines(paint: Paint, columns: number): string[] {
    const now = this.now();
    return this.running.map((task) =>
      taskLiveLine(paint, task, now, columns, this.#tokens.get(task.childId)),
    );
  }
}
