/**
 * Polling for what a test waits on (a process, a connection, a row): `check` is called until it
 * gives a value other than undefined, and the wait fails, naming what it waited for, after
 * `timeoutMs`. Generous timeouts: these are not timing asserts.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
