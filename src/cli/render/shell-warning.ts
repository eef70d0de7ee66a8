/** The warning shown where run_command cannot run (or runs less confined than usual). */
import type { ShellInfo } from "../../api/server.js";
import { type OutputStream, writeLine } from "./terminal.js";

/** Two lines: how commands run (or why they cannot), and what to do about it. */
export function writeShellWarning(output: OutputStream, shell: ShellInfo): void {
  writeLine(output, `${output.paint.yellow("!")} ${shell.detail}`);
  if (shell.hint !== null) writeLine(output, `  hint: ${shell.hint}`);
}
