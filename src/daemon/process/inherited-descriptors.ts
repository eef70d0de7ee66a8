/**
 * Descriptors the daemon inherited from whoever started it (a shell, a terminal multiplexer, a
 * CI runner) without close-on-exec. Node opens everything it owns with close-on-exec, but an
 * inherited descriptor stays open across every exec, so without this it would reach each
 * child, sandboxed commands included (bubblewrap passes them through): a pipe or socket
 * of the starting program, writable from inside the sandbox.
 *
 * Boundary rule: Linux only (it reads /proc); elsewhere it does nothing.
 */
import { closeSync, readdirSync, readFileSync } from "node:fs";

/** O_CLOEXEC on Linux's common architectures (x86, ARM, RISC-V); Node does not export it. */
const O_CLOEXEC = 0o2000000;

/** Close every descriptor ≥ 3 open without close-on-exec (but Node's IPC channel); returns them. */
export function closeInheritedDescriptors(env: NodeJS.ProcessEnv = process.env): number[] {
  const ipcChannel = Number(env.NODE_CHANNEL_FD ?? -1);
  let names: string[];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    return [];
  }
  const closed: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3 || fd === ipcChannel) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    } catch {
      // Closed meanwhile (the directory listing's own descriptor).
      continue;
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info);
    if (flags === null || (Number.parseInt(flags[1]!, 8) & O_CLOEXEC) !== 0) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Already gone.
    }
  }
  return closed;
}
