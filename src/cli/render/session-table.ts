/**
 * The `skein sessions` table: id prefix, name, status, last activity, model, tokens used (with
 * its `task` children's), preview (a `task` call's child says its agent and its parent first,
 * and sits indented under its parent when the caller put it there: src/api/session-tree.ts).
 *
 * Boundary rule: pure formatting of summaries; on a terminal the preview is cut to the width,
 * elsewhere every row still stays one line.
 */
import type { SessionSummary } from "../../api/session-snapshot.js";
import { agentsBeneathParents, tokensWithAgents } from "../../api/session-tree.js";
import { uniquePrefixes } from "../session-ref.js";
import { relativeTime } from "./relative-time.js";
import type { OutputStream } from "./terminal.js";
import { clip, oneLine, padVisible, visibleWidth } from "./text-shape.js";

/** The preview's column: the last, cut to what the terminal leaves. */
const PREVIEW = 6;

/**
 * The table's lines (a header and one row per session, in the order given). Each id is shown as
 * its shortest prefix (at least 8 characters) that is unique among `known` (default: the rows'
 * own), so a prefix pasted back names the same session even when only some rows are shown; the
 * tokens of a session count its `task` children's among `known` too, and a child listed under
 * its parent is indented.
 */
export function sessionTable(
  sessions: readonly SessionSummary[],
  output: OutputStream,
  now = Date.now(),
  known: readonly SessionSummary[] = sessions,
): string[] {
  const paint = output.paint;
  const prefixes = uniquePrefixes([...new Set([...known, ...sessions].map((session) => session.id))]);
  const tokens = tokensWithAgents([...new Map([...known, ...sessions].map((s) => [s.id, s])).values()]);
  const depths = new Map(agentsBeneathParents(sessions).map((row) => [row.session.id, row.depth]));
  const rows = sessions.map((session, index) => {
    const { phase, interrupt_requested: stopping } = session.status;
    // Indented only where the child follows its parent's rows (the caller's order says so).
    const depth =
      index > 0 && isBeneath(session, sessions.slice(0, index)) ? (depths.get(session.id) ?? 0) : 0;
    return [
      `${"  ".repeat(Math.max(0, depth - 1))}${depth > 0 ? "└ " : ""}${prefixes.get(session.id) ?? session.id}`,
      clip(session.name ?? "", 24),
      phase === "idle" ? "idle" : stopping ? "stopping" : phase,
      relativeTime(session.activity_at, now),
      clip(session.model ?? "-", 24),
      tokenCount(tokens.get(session.id) ?? session.usage.total_tokens),
      childLabel(session, prefixes) + oneLine(session.preview.text) + (session.preview.truncated ? "…" : ""),
    ];
  });
  const header = ["ID", "NAME", "STATUS", "ACTIVE", "MODEL", "TOKENS", "PREVIEW"];
  const widths = header
    .slice(0, PREVIEW)
    .map((title, column) => Math.max(visibleWidth(title), ...rows.map((row) => visibleWidth(row[column]!))));
  const used = widths.reduce((sum, width) => sum + width + 2, 0);
  const previewWidth = output.tty ? Math.max(10, output.columns - used - 1) : 60;
  const format = (cells: string[], style: (text: string, column: number) => string): string =>
    cells
      .map((cell, column) => {
        if (column === PREVIEW) return style(clip(cell, previewWidth), column);
        return padVisible(style(cell, column), widths[column]!);
      })
      .join("  ")
      .trimEnd();
  const lines = [format(header, (text) => paint.bold(text))];
  for (const row of rows) {
    lines.push(
      format(row, (text, column) => {
        if (column === 0) return paint.cyan(text);
        if (column === 2) {
          return text === "idle"
            ? paint.dim(text)
            : text === "waiting"
              ? paint.yellow(text)
              : paint.green(text);
        }
        if (column === 3 || column === 4 || column === 5) return paint.dim(text);
        return text;
      }),
    );
  }
  return lines;
}

/** Whether a `task` child's parent is among `above` (the rows before it). */
function isBeneath(session: SessionSummary, above: readonly SessionSummary[]): boolean {
  return session.agent !== null && above.some((row) => row.id === session.parent_id);
}

/** "agent NAME of PARENT · " for a `task` call's child, else nothing. */
function childLabel(session: SessionSummary, prefixes: ReadonlyMap<string, string>): string {
  if (session.agent === null || session.parent_id === null) return "";
  const parent = prefixes.get(session.parent_id) ?? session.parent_id.slice(0, 8);
  return `agent ${session.agent} of ${parent} · `;
}

/** Tokens the session used so far, short: "-", "950", "12.3k", "4.1M". */
export function tokenCount(tokens: number): string {
  if (tokens <= 0) return "-";
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}
