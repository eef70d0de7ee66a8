/**
 * Whether a process id is still taken, as signal 0 tells it: a zombie not yet reaped still
 * counts (unlike `isProcessAlive` of support/mcp/servers.ts, which reads its state in /proc).
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
