/**
 * Whether a process exists, asked of the kernel with signal 0 (nothing is delivered): what a
 * stale lock, a temporary file of a dead writer and a daemon's pid file are judged by.
 *
 * Boundary rule: one question to the operating system, no other effect.
 */

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
