/**
 * History entries made whole: each truncated part's content is read slice by slice through its
 * `ref` and put back in place, as the part would read had it been small.
 *
 * Boundary rule: HTTP through the DaemonClient only; entries without truncated parts are
 * returned as they are, without a request.
 */
import { type HistoryEntry, type HistoryPart, isTruncatedPart } from "../api/history.js";
import type { DaemonClient } from "../client/daemon-client.js";
import type { JsonValue } from "../model/json.js";

/** The entries with every truncated part replaced by its whole content. */
export async function withFullContent(
  client: DaemonClient,
  entries: readonly HistoryEntry[],
): Promise<HistoryEntry[]> {
  const whole: HistoryEntry[] = [];
  for (const entry of entries) {
    if (!entry.content.some(isTruncatedPart)) {
      whole.push(entry);
      continue;
    }
    const content: HistoryPart[] = [];
    for (const part of entry.content) content.push(await wholePart(client, part));
    whole.push({ ...entry, content });
  }
  return whole;
}

async function wholePart(client: DaemonClient, part: HistoryPart): Promise<HistoryPart> {
  if (!isTruncatedPart(part)) return part;
  const chunks: string[] = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const slice = await client.contentSlice(part.ref, offset);
    chunks.push(slice.text);
    offset = slice.next_offset;
  }
  const text = chunks.join("");
  if (part.kind === "text") return { kind: "text", text };
  return {
    kind: "json",
    field: part.field,
    value: part.encoding === "json" ? (JSON.parse(text) as JsonValue) : text,
  };
}
