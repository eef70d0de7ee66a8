/**
 * The last step of a drain: stop listening and close the connections.
 *
 * Boundary rule: called once every session has stopped, so what is still open after a moment
 * (a request that hangs, a client that keeps a relayed answer open) is cut rather than allowed
 * to hold the process's exit.
 */
import type { HttpApp } from "./create-http-app.js";

/** Close `app`; connections still open after `graceMs` are destroyed. */
export async function closeListener(app: HttpApp, graceMs = 1_000): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
