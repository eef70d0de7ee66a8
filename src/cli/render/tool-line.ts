/**
 * The one line a tool call gets: `⚙ name key=value … → first line of the result`.
 *
 * Boundary rule: pure formatting of a call's name, arguments and result; the caller decides
 * when a call is shown (once, when its result is known).
 */
import type { HistoryEntry } from "../../api/history.js";
import { parseToolArguments, toolArgumentsObject } from "../../model/tool-arguments.js";
import { patchEditArguments } from "./patch-diff.js";
import type { Paint } from "./terminal.js";
import { clip, oneLine } from "./text-shape.js";

/** Arguments as `key=value` pairs, each value short; a non-object is shown as compact JSON. */
function shortArguments(args: unknown, width = 60): string {
  if (typeof args === "string") {
    const parsed = parseToolArguments(args);
    return parsed.kind === "invalid_json" ? clip(oneLine(args), width) : shortArguments(parsed.value, width);
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return clip(oneLine(JSON.stringify(args) ?? ""), width);
  }
  const parts = Object.entries(args as Record<string, unknown>).map(([key, value]) => {
    const shown =
      typeof value === "string"
        ? JSON.stringify(clip(oneLine(value), 24))
        : clip(JSON.stringify(value) ?? "", 24);
    return `${key}=${shown}`;
  });
  return clip(parts.join(" "), width);
}

/** The first meaningful line of a result, clipped. */
export function shortResult(result: unknown, width = 80): string {
  const text = typeof result === "string" ? result : (JSON.stringify(result) ?? "");
  const firstLine = text.split("\n").find((line) => line.trim() !== "") ?? "";
  const more = text.trim().split("\n").length > 1 ? " …" : "";
  return clip(oneLine(firstLine), width) + (firstLine.length > width ? "" : more);
}

/** Lines of a result shown under its tool line. */
const previewLines = 3;

/** The arguments as an object (a JSON string parsed), or null. */
function argumentObject(args: unknown): Record<string, unknown> | null {
  if (typeof args === "string") return toolArgumentsObject(args);
  return typeof args === "object" && args !== null && !Array.isArray(args)
    ? (args as Record<string, unknown>)
    : null;
}

/** What a call is about, in full: a command, a path; or its arguments in short. */
export function callSubject(name: string, args: unknown, width: number): string {
  const object = argumentObject(args);
  const text = (key: string): string | null =>
    typeof object?.[key] === "string" ? (object[key] as string) : null;
  const command = text("command");
  if (name === "run_command" && command !== null) return `$ ${command.replaceAll("\n", " ⏎ ")}`;
  const path = text("path");
  if (path !== null && ["read_file", "write_file", "edit_file", "list_files"].includes(name)) {
    const rest = Object.fromEntries(
      Object.entries(object ?? {}).filter(
        ([key]) => !["path", "content", "old_text", "new_text"].includes(key),
      ),
    );
    return Object.keys(rest).length === 0 ? path : `${path} ${shortArguments(rest, width)}`;
  }
  if (name === "list_files" && object !== null && Object.keys(object).length === 0) return ".";
  return searchSubject(name, object, width) ?? shortArguments(args, width);
}

/** The subject of the search, plan, patch, fetch and task tools; null for other calls. */
function searchSubject(name: string, object: Record<string, unknown> | null, width: number): string | null {
  const text = (key: string): string | null =>
    typeof object?.[key] === "string" ? (object[key] as string) : null;
  const where = text("path") === null ? "" : ` in ${text("path")}`;
  const pattern = text("pattern");
  if (name === "grep" && pattern !== null) {
    const glob = text("glob") === null ? "" : ` (${text("glob")})`;
    return clip(`/${oneLine(pattern)}/${where}${glob}`, width);
  }
  if (name === "glob" && pattern !== null) return clip(`${oneLine(pattern)}${where}`, width);
  if (name === "web_fetch" && text("url") !== null) return clip(oneLine(text("url") ?? ""), width);
  if (name === "todo_write" && Array.isArray(object?.todos)) return `${object.todos.length} items`;
  if (name === "task" && text("agent") !== null)
    return clip(`${text("agent")}: ${oneLine(text("prompt") ?? "")}`, width);
  const edits = patchEditArguments(object);
  if (name === "apply_patch" && edits !== null) {
    const paths = [...new Set(edits.map((edit) => edit.path))];
    return clip(`${edits.length} edit${edits.length === 1 ? "" : "s"}: ${paths.join(", ")}`, width);
  }
  return null;
}

/** A search's summary: how many matches or files it found, from the note after the list if any. */
function searchSummary(name: string, lines: readonly string[]): string | null {
  if (name !== "grep" && name !== "glob") return null;
  if (lines.length === 1 && /^no (matches|files match)$/.test(lines[0] ?? "")) return lines[0] ?? "";
  const note = lines.at(-1)?.startsWith("[") === true ? lines.at(-1) : undefined;
  const shown = lines.length - (note === undefined ? 0 : 1);
  const total = note === undefined ? shown : Number(/^\[(\d+) more/.exec(note)?.[1] ?? 0) + shown;
  const unit = name === "grep" ? "match" : "file";
  return `${total} ${unit}${total === 1 ? "" : name === "grep" ? "es" : "s"}`;
}

/**
 * A tool call as the chat shows it: `⚙ name subject → summary`, the full command or path, and
 * under it the first lines of the result with "+N lines" for the rest (red when the tool
 * reported an error).
 */
export function toolLines(
  paint: Paint,
  call: { name: string; args: unknown; result: unknown; isError: boolean },
  columns = 100,
): string[] {
  const subject = callSubject(call.name, call.args, Math.max(20, Math.floor(columns * 0.6)));
  const text = typeof call.result === "string" ? call.result : (JSON.stringify(call.result) ?? "");
  let lines = text.replace(/\n+$/, "").split("\n");
  let summary: string;
  const exit = /^exit code: (-?\d+|null)$/.exec(lines[0] ?? "");
  if (call.name === "run_command" && exit !== null) {
    summary = exit[1] === "0" ? paint.green("exit 0") : paint.red(`exit ${exit[1]}`);
    lines = lines.slice(1);
  } else if (call.name === "read_file" && !call.isError) {
    summary = paint.dim(`${lines.length} line${lines.length === 1 ? "" : "s"}`);
    lines = [];
  } else if (!call.isError && searchSummary(call.name, lines) !== null) {
    summary = paint.dim(searchSummary(call.name, lines) ?? "");
    if (/^no (matches|files match)$/.test(lines[0] ?? "")) lines = [];
  } else {
    const first = lines.shift() ?? "";
    summary = call.isError ? paint.red(clip(first, columns)) : paint.dim(clip(first, columns));
  }
  if (lines.length === 1 && lines[0] === "") lines = [];
  const arrow = call.isError ? paint.red("✗") : paint.dim("→");
  const out = [`${paint.yellow("⚙")} ${paint.bold(call.name)} ${subject} ${arrow} ${summary}`];
  const style = call.isError ? paint.red : paint.dim;
  // The plan is shown whole: it is what the person follows the agent by.
  const preview = call.name === "todo_write" && !call.isError ? lines.length : previewLines;
  for (const line of lines.slice(0, preview)) out.push(style(`  │ ${clip(line, Math.max(10, columns - 5))}`));
  if (lines.length > preview) out.push(paint.dim(`  … +${lines.length - preview} lines`));
  return out;
}

/** The concatenated text parts of an entry. */
export function entryText(entry: HistoryEntry): string {
  let text = "";
  for (const part of entry.content) if (part.kind === "text") text += part.text;
  return text;
}

/** The value of an entry's json part for `field` (a tool call's arguments, a tool result). */
export function entryJson(entry: HistoryEntry, field: "arguments" | "result"): unknown {
  for (const part of entry.content) if (part.kind === "json" && part.field === field) return part.value;
  return undefined;
}
