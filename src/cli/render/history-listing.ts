/**
 * `skein show`: a session's history as readable text, each entry tagged with the id a fork
 * can start from.
 *
 * Boundary rule: pure formatting of snapshot data and history entries into lines.
 */
import type { HistoryEntry } from "../../api/history.js";
import type { SessionSnapshot } from "../../api/session-snapshot.js";
import { todoMark } from "../../api/todos.js";
import { compactionLine } from "./compaction-line.js";
import { exclusionLine } from "./exclusion-line.js";
import { interruptedMark } from "./interrupted-mark.js";
import { clockTime } from "./relative-time.js";
import type { Paint } from "./terminal.js";
import { callSubject, entryJson, shortResult } from "./tool-line.js";
import { displayText } from "./truncated-text.js";

/** The header lines of a session. */
export function sessionHeader(snapshot: SessionSnapshot, paint: Paint): string[] {
  const lines = [
    `${paint.bold("session")} ${paint.cyan(snapshot.id)}${snapshot.name === null ? "" : `  ${paint.bold(snapshot.name)}`}`,
  ];
  const model =
    snapshot.model === null
      ? "no provider"
      : `${snapshot.model}${snapshot.provider_profile === null ? "" : ` (${snapshot.provider_profile})`}`;
  lines.push(paint.dim(`workspace ${snapshot.workspace} · model ${model} · created ${snapshot.created_at}`));
  const usage = snapshot.usage;
  lines.push(
    paint.dim(
      `status ${snapshot.status.phase} · ${usage.total_tokens} tokens (${usage.prompt_tokens} in, ${usage.completion_tokens} out)` +
        (snapshot.parent_id === null ? "" : ` · forked from ${snapshot.parent_id}`),
    ),
  );
  const context = snapshot.context;
  if (context !== null) {
    const cost = context.cost_usd === null ? "" : ` · cost $${context.cost_usd.toFixed(4)}`;
    const guess = context.estimated ? "about " : "";
    lines.push(
      paint.dim(
        `context ${guess}${context.used_tokens} of ${context.context_window} tokens (${Math.round(context.fill * 100)}%, compacts at ${Math.round(context.compact_threshold * 100)}%)${cost}`,
      ),
    );
    for (const warning of context.warnings) lines.push(paint.yellow(`warning: ${warning}`));
  }
  return [...lines, ...planLines(snapshot, paint)];
}

/** The agent's plan (its latest `todo_write`), one line per item; none when there is none. */
function planLines(snapshot: SessionSnapshot, paint: Paint): string[] {
  if (snapshot.todos.length === 0) return [];
  const done = snapshot.todos.filter((todo) => todo.status === "completed").length;
  return [
    paint.bold(`plan (${done}/${snapshot.todos.length} done)`),
    ...snapshot.todos.map((todo) => {
      const line = `  ${todoMark(todo.status)} ${todo.content.replaceAll("\n", " ")}`;
      return todo.status === "completed" ? paint.dim(line) : line;
    }),
  ];
}

/** The lines of one entry. */
export function entryLines(
  entry: HistoryEntry,
  paint: Paint,
  options: { showThinking: boolean; calls: Map<string, { name: string; args: unknown }> },
): string[] {
  const tag = paint.dim(`[${entry.id}]`);
  const time = paint.dim(clockTime(entry.created_at));
  // An answer an interrupt cut short: what it had streamed, marked.
  const cut = entry.interrupted === true ? ` ${paint.yellow(interruptedMark)}` : "";
  const body = (text: string, style: (text: string) => string = (t) => t): string[] =>
    text.split("\n").map((line) => `    ${style(line)}`);
  switch (entry.kind) {
    case "user":
      return [`${tag} ${paint.bold(paint.cyan("you"))} ${time}`, ...body(displayText(entry), paint.bold)];
    case "assistant":
      return [`${tag} ${paint.bold("assistant")} ${time}${cut}`, ...body(displayText(entry))];
    case "thinking": {
      const text = displayText(entry);
      if (!options.showThinking || text === "") return [];
      return [
        `${tag} ${paint.dim("thinking")}${cut}`,
        ...body(text, (line) => paint.dim(paint.italic(line))),
      ];
    }
    case "tool_call": {
      const name = entry.tool?.name ?? "?";
      const args = entryJson(entry, "arguments");
      if (entry.tool !== null) options.calls.set(entry.tool.tool_call_id, { name, args });
      return [`${tag} ${paint.yellow("⚙")} ${paint.bold(name)} ${paint.dim(callSubject(name, args, 100))}`];
    }
    case "tool_result": {
      const isError = entry.tool?.is_error === true;
      const result = shortResult(entryJson(entry, "result"), 100);
      const name = entry.tool?.name ?? "";
      return [
        `${tag} ${isError ? paint.red("✗") : paint.dim("→")} ${paint.dim(name)} ${isError ? paint.red(result) : result}`,
      ];
    }
    case "note":
      return [`${tag} ${paint.dim("note")}`, ...body(displayText(entry), paint.dim)];
    case "continuation":
      return [`${tag} ${paint.dim("(continue)")}`];
    case "compaction":
      return [`${tag} ${paint.dim(compactionLine(entry))}`, ...body(displayText(entry), paint.dim)];
    case "context_excluded":
      return [`${tag} ${paint.yellow(exclusionLine(entry))}`];
    default: {
      const unknown: never = entry.kind;
      return [`${tag} ${String(unknown)}`];
    }
  }
}
