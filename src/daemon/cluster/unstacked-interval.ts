/**
 * A periodic task whose ticks never overlap: a tick that comes while the previous run is still
 * going is skipped, not stacked.
 */

/** Run `work` every `ms` (the timer does not keep the process alive), skipping ticks while a run is going. */
export function unstackedInterval(ms: number, work: () => unknown): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    // A tick that outlasts the period (a renewal waiting on a commit's fence lock) is skipped,
    // not stacked: piled-up renewals would take the connections the commits need.
    if (running) return;
    running = true;
    void Promise.resolve()
      .then(work)
      .finally(() => {
        running = false;
      });
  }, ms);
  timer.unref();
  return timer;
}
