/**
 * What happens when the reader of our output goes away (`skein run … | head`): work registered
 * here (interrupting the turn this process started) runs first, then the process exits quietly,
 * like other Unix tools.
 *
 * Boundary rule: process-wide by nature (there is one stdout); bin/skein.js calls
 * `leaveOnBrokenPipe` on EPIPE, commands register their cleanup with `onBrokenPipe`.
 */

type Cleanup = () => Promise<void>;

const cleanups = new Set<Cleanup>();
let leaving = false;

/** How long cleanups get before the process exits anyway. */
const cleanupBudgetMs = 5_000;

/** Run `cleanup` before leaving on a broken pipe; returns a function that unregisters it. */
export function onBrokenPipe(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

/** Whether the process is leaving because its reader went away. */
export function leavingOnBrokenPipe(): boolean {
  return leaving;
}

/** Run the registered cleanups (at most a few seconds), then exit with `exitCode`; once only. */
export function leaveOnBrokenPipe(exitCode: number): void {
  if (leaving) return;
  leaving = true;
  const all = Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
  const budget = new Promise<void>((resolve) => setTimeout(resolve, cleanupBudgetMs).unref());
  void Promise.race([all, budget]).then(() => process.exit(exitCode));
}
