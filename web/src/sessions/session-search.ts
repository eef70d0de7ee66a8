/** Which sessions a search in the sidebar finds. */
import type { SessionSummary } from "../../../src/api/session-snapshot.js";

/**
 * Whether `session` matches every word of `query` (case-insensitive) in its name, first prompt,
 * workspace, model or id; an empty query matches all.
 */
export function matchesSearch(session: SessionSummary, query: string): boolean {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length === 0) return true;
  const haystack = [
    session.name ?? "",
    session.preview.text,
    session.workspace,
    session.model ?? "",
    session.id,
  ]
    .join("\n")
    .toLowerCase();
  return words.every((word) => haystack.includes(word));
}
