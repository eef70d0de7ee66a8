/**
 * The one line a tool call gets: `⚙ name key=value … → first line of the result`.
 *
 * Boundary rule: pure formatting of a call's name, arguments and result; the caller decides
 * when a call is shown (once, when its result is known).
 */
import type { HistoryEntry } from "../../api/history.js";
import type { Paint } from "./terminal.js";
import { clip, oneLine } from "./text-shape.js";

/** Arguments as `key=value` pairs, each value short; a non-object is shown as compact JSON. */
export function shortArguments(args: unknown, width = 60): string {
  if (typeof args === "string") {
    try {
      return shortArguments(JSON.parse(args) as unknown, width);
    } catch {
      return clip(oneLine(args), width);
    }
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

/** `⚙ name args → result` (the result red when the tool reported an error). */
export function toolLine(
  paint: Paint,
  call: { name: string; args: unknown; result: unknown; isError: boolean },
  columns = 100,
): string {
  const argsWidth = Math.max(20, Math.floor(columns * 0.45));
  const args = shortArguments(call.args, argsWidth);
  const resultWidth = Math.max(20, columns - args.length - call.name.length - 8);
  const result = shortResult(call.result, resultWidth);
  const arrow = call.isError ? paint.red("✗") : paint.dim("→");
  const shownResult = call.isError ? paint.red(result) : paint.dim(result);
  return `${paint.yellow("⚙")} ${paint.bold(call.name)} ${paint.dim(args)} ${arrow} ${shownResult}`;
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
