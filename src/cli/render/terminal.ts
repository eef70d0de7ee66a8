/**
 * The terminal a command writes to: its two output streams, whether each is a TTY, and
 * whether colour is wanted (NO_COLOR, FORCE_COLOR, TERM=dumb and piping are respected).
 *
 * Boundary rule: decisions about the terminal live here; renderers ask, never probe.
 */
import type { Writable } from "node:stream";
import pc from "picocolors";

/** Colour functions (identity when colour is off). */
export type Paint = ReturnType<typeof pc.createColors>;

/** One output stream with its capabilities. */
export interface OutputStream {
  stream: Writable;
  /** True when it is a terminal (spinners and in-place updates are allowed). */
  tty: boolean;
  paint: Paint;
  /** Width in columns (80 when unknown). */
  columns: number;
}

export interface Terminal {
  out: OutputStream;
  err: OutputStream;
  env: NodeJS.ProcessEnv;
}

/** Whether colour is wanted on a stream. */
export function wantsColor(tty: boolean, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "" && env.FORCE_COLOR !== "0") return true;
  return tty && env.TERM !== "dumb";
}

function outputStream(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): OutputStream {
  const tty = stream.isTTY === true && env.TERM !== "dumb";
  return { stream, tty, paint: pc.createColors(wantsColor(tty, env)), columns: stream.columns ?? 80 };
}

/** The process's own terminal. */
export function processTerminal(env: NodeJS.ProcessEnv = process.env): Terminal {
  return { out: outputStream(process.stdout, env), err: outputStream(process.stderr, env), env };
}

/** Write a whole line. */
export function writeLine(output: OutputStream, text = ""): void {
  output.stream.write(`${text}\n`);
}
