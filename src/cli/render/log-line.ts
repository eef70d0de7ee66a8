/**
 * The daemon's log lines (pino JSON: `{"level","time","pid","msg",...}`) made readable for
 * `skein daemon logs`: `HH:MM:SS.mmm LEVEL message key=value …`, local time.
 *
 * Boundary rule: pure formatting of one line; anything that is not a pino record (a start-up
 * message, a stack trace) is printed as it is.
 */
import type { Paint } from "./terminal.js";

const levels: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};
/** Fields every record has, shown in the fixed part of the line or not at all. */
const fixed = new Set(["level", "time", "pid", "hostname", "msg"]);

/** One log line, readable; non-JSON lines come back unchanged. */
export function formatLogLine(line: string, paint: Paint): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof record !== "object" || record === null || Array.isArray(record)) return line;
  const fields = record as Record<string, unknown>;
  if (typeof fields.level !== "number" || typeof fields.time !== "number") return line;
  const level = levels[fields.level] ?? String(fields.level);
  const paintLevel = fields.level >= 50 ? paint.red : fields.level >= 40 ? paint.yellow : paint.dim;
  const rest = Object.entries(fields)
    .filter(([key]) => !fixed.has(key))
    .map(([key, value]) => `${key}=${renderValue(value)}`);
  const message = typeof fields.msg === "string" ? fields.msg : "";
  return [
    paint.dim(clock(fields.time)),
    paintLevel(level.padEnd(5)),
    message,
    ...rest.map((part) => paint.dim(part)),
  ]
    .filter((part) => part !== "")
    .join(" ");
}

function clock(ms: number): string {
  const date = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, "0")}`;
}

function renderValue(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (typeof value === "object" && value !== null && "stack" in value && typeof value.stack === "string") {
    // pino serialises errors as {type, message, stack}: the stack says it all.
    return `\n${value.stack}`;
  }
  return JSON.stringify(value);
}
