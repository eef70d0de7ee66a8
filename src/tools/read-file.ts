/**
 * `read_file`: a window of lines from a text file in the workspace.
 *
 * Boundary rule: the file is streamed, never loaded whole, and at most `OUTPUT_LIMIT_BYTES` of it
 * reaches the model; the output says where it stopped and which `offset` continues it.
 */
import type { FileHandle } from "node:fs/promises";
import { ToolError } from "../model/tools.js";
import { unreachable } from "../model/unreachable.js";
import { argumentsSchema } from "./argument-schema.js";
import type { HiddenPaths } from "./hidden-paths.js";
import { OUTPUT_LIMIT_BYTES, utf8Prefix } from "./output-limit.js";
import { type WorkspaceTool, workspaceTool } from "./tool-kind.js";
import { openRegularFile } from "./workspace-file.js";
import { filePathArgument, realWorkspace, resolveInWorkspace } from "./workspace-path.js";

/** Lines returned when the call gives no `limit`. */
export const DEFAULT_READ_LINES = 2000;
const MAX_READ_LINES = 100_000;
/** A NUL byte in this many leading bytes marks a file as binary. */
const BINARY_SNIFF_BYTES = 8192;
const CHUNK_BYTES = 64 * 1024;

/** Arguments of `read_file`. */
export interface ReadFileInput {
  path: string;
  offset?: number;
  limit?: number;
}

const inputSchema = argumentsSchema(
  {
    path: filePathArgument,
    offset: { type: "integer", minimum: 1, description: "1-based line number to start at (default 1)." },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_READ_LINES,
      description: `Most lines to return (default ${DEFAULT_READ_LINES}).`,
    },
  },
  ["path"],
);

const description =
  "Read a UTF-8 text file from the workspace. Returns the file's lines exactly (no line numbers added). " +
  `Reads at most ${DEFAULT_READ_LINES} lines or ${OUTPUT_LIMIT_BYTES / 1024} KiB per call; when more remains, ` +
  "a final bracketed note gives the offset to continue from.";

/** The `read_file` tool, confined to a workspace and kept off its hidden paths. */
export const readFileTool: WorkspaceTool = workspaceTool("read_file", inputSchema, description, readFile);

async function readFile(workspace: string, hidden: HiddenPaths, input: ReadFileInput): Promise<string> {
  const realRoot = await realWorkspace(workspace);
  const absolute = await resolveInWorkspace(workspace, input.path, hidden);
  const handle = await openRegularFile(realRoot, absolute, input.path);
  try {
    const first = input.offset ?? 1;
    const window = await readLineWindow(handle, first, input.limit ?? DEFAULT_READ_LINES, OUTPUT_LIMIT_BYTES);
    if (window === "binary") {
      throw new ToolError(
        "execution_failed",
        `"${input.path}" looks like a binary file; read_file shows text only`,
      );
    }
    if (window.stop === "end" && window.totalLines === 0) return "(empty file)";
    if (window.lines.length === 0 && window.stop === "end") {
      throw new ToolError(
        "invalid_argument",
        `offset ${first} is past the end of "${input.path}" (${window.totalLines} lines)`,
      );
    }
    return window.lines.join("\n") + windowNote(window, first);
  } finally {
    await handle.close();
  }
}

/** Why reading stopped. */
type WindowStop = "end" | "limit" | "budget";

interface LineWindow {
  lines: string[];
  stop: WindowStop;
  /** Lines in the file; known only when the whole file was scanned (`stop === "end"`). */
  totalLines: number;
  /** Whether bytes follow the last line returned. */
  more: boolean;
  /** Set when the first requested line alone did not fit and was cut. */
  cutLine?: { omittedBytes: number };
}

function windowNote(window: LineWindow, first: number): string {
  const last = first + window.lines.length - 1;
  switch (window.stop) {
    case "end":
      return first === 1 ? "" : `\n[lines ${first}-${last} of ${window.totalLines}]`;
    case "limit":
      return window.more
        ? `\n[lines ${first}-${last}; more lines follow, continue with offset=${last + 1}]`
        : "";
    case "budget":
      if (window.cutLine !== undefined) {
        return (
          `\n[line ${first} is longer than the ${OUTPUT_LIMIT_BYTES}-byte output limit: ` +
          `${window.cutLine.omittedBytes} bytes of it not shown; the next line is offset=${first + 1}]`
        );
      }
      return (
        `\n[output limit of ${OUTPUT_LIMIT_BYTES} bytes reached: lines ${first}-${last} shown; ` +
        `continue with offset=${last + 1}]`
      );
    default:
      return unreachable(window.stop, "unknown read stop");
  }
}

/**
 * Streams the file and collects `count` lines from line `first`, within `budget` bytes of
 * output (newlines included). Lines are split on "\n" only, so "\r" stays visible to edits.
 */
async function readLineWindow(
  handle: FileHandle,
  first: number,
  count: number,
  budget: number,
): Promise<LineWindow | "binary"> {
  const chunk = Buffer.alloc(CHUNK_BYTES);
  const window = new LineWindowCollector(first, count, budget);
  let position = 0;
  let sniffed = false;
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    if (!sniffed) {
      sniffed = true;
      if (data.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return "binary";
    }
    let start = 0;
    while (start < data.length) {
      const newline = data.indexOf(0x0a, start);
      window.add(data.subarray(start, newline === -1 ? data.length : newline));
      if (newline === -1) break;
      start = newline + 1;
      const done = window.finishLine();
      if (done !== undefined) {
        if (done.stop === "budget") return done;
        return settleLimit(
          done,
          window.lineNumber - 1,
          start < bytesRead || (await hasMoreBytes(handle, position + bytesRead)),
        );
      }
    }
    position += bytesRead;
  }
  if (window.lineBytes > 0) {
    const done = window.finishLine();
    if (done !== undefined)
      return done.stop === "budget" ? done : settleLimit(done, window.lineNumber - 1, false);
  }
  return { lines: window.lines, stop: "end", totalLines: window.lineNumber - 1, more: false };
}

/** The lines of one window as the file is read: the current line's bytes, the lines kept so far. */
class LineWindowCollector {
  readonly lines: string[] = [];
  /** The number of the line being read (1-based). */
  lineNumber = 1;
  /** The bytes of the line being read so far. */
  lineBytes = 0;
  private usedBytes = 0;
  private pieces: Buffer[] = [];
  private keptBytes = 0;

  constructor(
    private readonly first: number,
    private readonly count: number,
    private readonly budget: number,
  ) {}

  /** More of the current line. Only what could be shown (plus a partial character's worth) of a very long line is kept. */
  add(piece: Buffer): void {
    this.lineBytes += piece.length;
    const room = this.budget + 4 - this.keptBytes;
    if (this.lineNumber >= this.first && room > 0) {
      this.pieces.push(Buffer.from(piece.subarray(0, room)));
      this.keptBytes += Math.min(piece.length, room);
    }
  }

  /** The current line ended: the finished window when this line ends the read, otherwise undefined. */
  finishLine(): LineWindow | undefined {
    const { lines } = this;
    const current = this.lineNumber;
    const bytes = this.lineBytes;
    const kept = Buffer.concat(this.pieces);
    this.lineNumber += 1;
    this.pieces = [];
    this.keptBytes = 0;
    this.lineBytes = 0;
    if (current < this.first) return undefined;
    const cost = bytes + (lines.length > 0 ? 1 : 0);
    if (this.usedBytes + cost > this.budget) {
      if (lines.length > 0) return { lines, stop: "budget", totalLines: 0, more: true };
      const shown = utf8Prefix(kept, this.budget);
      lines.push(shown);
      return {
        lines,
        stop: "budget",
        totalLines: 0,
        more: true,
        cutLine: { omittedBytes: bytes - Buffer.byteLength(shown, "utf8") },
      };
    }
    lines.push(kept.toString("utf8"));
    this.usedBytes += cost;
    return lines.length >= this.count ? { lines, stop: "limit", totalLines: 0, more: false } : undefined;
  }
}

/** A window that hit its line limit exactly at the end of the file is a whole-file window. */
function settleLimit(window: LineWindow, lastLine: number, more: boolean): LineWindow {
  return more ? { ...window, more } : { ...window, stop: "end", totalLines: lastLine, more };
}

async function hasMoreBytes(handle: FileHandle, position: number): Promise<boolean> {
  const probe = Buffer.alloc(1);
  const { bytesRead } = await handle.read(probe, 0, 1, position);
  return bytesRead > 0;
}
