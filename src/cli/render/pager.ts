/**
 * Long output on a terminal goes through a pager ($PAGER, default `less -FRX`), like git does.
 *
 * Boundary rule: only when stdout is a terminal and the text is taller than it; a pager that
 * cannot be started falls back to printing.
 */
import { spawn } from "node:child_process";
import type { OutputStream } from "./terminal.js";

/** Print `lines`, through a pager when they do not fit the terminal. */
export async function page(
  output: OutputStream,
  lines: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const text = `${lines.join("\n")}\n`;
  const rows = (output.stream as NodeJS.WriteStream).rows ?? 24;
  const pager = env.SKEIN_PAGER ?? env.PAGER ?? "less -FRX";
  if (!output.tty || lines.length < rows || pager === "" || pager === "cat") {
    output.stream.write(text);
    return;
  }
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn(pager, {
      shell: true,
      stdio: ["pipe", "inherit", "inherit"],
      env: { LESS: "FRX", ...env },
    });
    child.once("error", () => resolve(false));
    child.stdin.on("error", () => undefined);
    child.once("exit", () => resolve(true));
    child.stdin.end(text);
  });
  if (!started) output.stream.write(text);
}
