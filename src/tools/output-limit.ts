/**
 * Bounds the text a tool hands back to the model.
 *
 * Boundary rule: every tool output that can grow with the workspace or a command goes through a
 * `BoundedOutput` (or `truncateText`), so the model always sees at most about `OUTPUT_LIMIT_BYTES`
 * plus a marker that says how many bytes were left out. Cuts fall on UTF-8 character boundaries.
 */

/** The most bytes of tool output given to the model. */
export const OUTPUT_LIMIT_BYTES = 64 * 1024;

/**
 * Keeps the first and last halves of a byte stream within `limitBytes` and counts the rest, so a
 * command's first lines and its final errors both survive.
 */
export class BoundedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(limitBytes: number = OUTPUT_LIMIT_BYTES) {
    this.headLimit = Math.ceil(limitBytes / 2);
    this.tailLimit = Math.floor(limitBytes / 2);
  }

  /** Bytes appended so far, kept or not. */
  get totalBytes(): number {
    return this.total;
  }

  /** Adds a chunk of output. */
  append(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const taken = rest.subarray(0, this.headLimit - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      rest = rest.subarray(taken.length);
    }
    if (rest.length === 0 || this.tailLimit === 0) return;
    this.tail.push(rest);
    this.tailBytes += rest.length;
    while (this.tailBytes - (this.tail[0]?.length ?? 0) >= this.tailLimit) {
      this.tailBytes -= this.tail.shift()?.length ?? 0;
    }
  }

  /** The kept text, with a marker where bytes were omitted. */
  render(): string {
    const head = Buffer.concat(this.head);
    let tail = Buffer.concat(this.tail);
    if (tail.length > this.tailLimit) tail = tail.subarray(tail.length - this.tailLimit);
    const omitted = this.total - head.length - tail.length;
    if (omitted === 0) return Buffer.concat([head, tail]).toString("utf8");
    const headEnd = completeUtf8Length(head);
    const tailStart = utf8BoundaryAtOrAfter(tail, 0);
    const shownOmitted = omitted + (head.length - headEnd) + tailStart;
    return (
      head.subarray(0, headEnd).toString("utf8") +
      omissionMarker(shownOmitted) +
      tail.subarray(tailStart).toString("utf8")
    );
  }
}

/** The marker placed where output was cut. */
export function omissionMarker(omittedBytes: number): string {
  return `\n[... output truncated: ${omittedBytes} bytes omitted ...]\n`;
}

/** Shortens `text` to about `limitBytes` (head and tail kept), marking what was cut. */
export function truncateText(text: string, limitBytes: number = OUTPUT_LIMIT_BYTES): string {
  if (Buffer.byteLength(text, "utf8") <= limitBytes) return text;
  const output = new BoundedOutput(limitBytes);
  output.append(Buffer.from(text, "utf8"));
  return output.render();
}

/** The first `maxBytes` of `bytes` as text, never splitting a UTF-8 character. */
export function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  if (bytes.length <= maxBytes) return bytes.toString("utf8");
  return bytes.subarray(0, utf8BoundaryAtOrBefore(bytes, maxBytes)).toString("utf8");
}

function isContinuationByte(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0b1100_0000) === 0b1000_0000;
}

function utf8BoundaryAtOrBefore(bytes: Buffer, index: number): number {
  let at = Math.min(index, bytes.length);
  while (at > 0 && at < bytes.length && isContinuationByte(bytes[at])) at--;
  return at;
}

/** Length of the longest prefix of `bytes` that does not end inside a multi-byte character. */
function completeUtf8Length(bytes: Buffer): number {
  for (let lead = bytes.length - 1; lead >= Math.max(0, bytes.length - 4); lead--) {
    const byte = bytes[lead] ?? 0;
    if (isContinuationByte(byte)) continue;
    const width = byte < 0x80 ? 1 : byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
    return lead + width > bytes.length ? lead : bytes.length;
  }
  return bytes.length;
}

function utf8BoundaryAtOrAfter(bytes: Buffer, index: number): number {
  let at = index;
  while (at < bytes.length && isContinuationByte(bytes[at])) at++;
  return at;
}
