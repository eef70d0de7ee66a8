/**
 * The head of a request Node failed to parse, read back from the bytes its 'clientError' event
 * hands over (`rawPacket`: the bytes of the one read whose parse failed, not a copy of
 * everything the connection sent), so the identity checks can still judge it.
 *
 * Boundary rule: a lenient reader that never decides anything. It reads up to the end of the
 * head (or 64 KiB): when the bytes start with a request line, the head is whole up to where it
 * ends or the bytes stop; otherwise they are the tail of a head whose start came in an earlier
 * read, and only the header lines they show are known. Lines without a colon, continuation
 * lines and anything after the head are ignored.
 */
import type { ReadableHead } from "./request-authority.js";

/** Most bytes of a packet looked at (Node refuses heads far smaller: 16 KiB by default). */
const scanLimit = 65_536;

/** A request line: a method token, a target and an HTTP version (possibly with more after it). */
const requestLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) \S+ HTTP\//;

/** A header line: a token, a colon, the value with its surrounding blanks trimmed. */
const headerLine = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

/** The head found at the start of `raw`, or null when there are no bytes at all. */
export function headInRawRequest(raw: Buffer | undefined): ReadableHead | null {
  if (raw === undefined || raw.length === 0) return null;
  const end = raw.indexOf("\r\n\r\n");
  const text = raw.subarray(0, end < 0 ? Math.min(raw.length, scanLimit) : end).toString("latin1");
  const lines = text.split("\r\n");
  const first = requestLine.exec(lines[0]!);
  const rawHeaders: string[] = [];
  for (const line of first === null ? lines : lines.slice(1)) {
    const header = headerLine.exec(line);
    if (header !== null) rawHeaders.push(header[1]!, header[2]!);
  }
  return { rawHeaders, method: first === null ? null : first[1]!, whole: first !== null };
}
