/**
 * How the daemon runs the agent's commands, as `GET /server` says: asked by `skein run` and
 * `skein chat` when they start a session, so a missing sandbox is said where the user looks.
 */
import type { ShellInfo } from "../api/server.js";
import type { DaemonClient } from "../client/daemon-client.js";

/** The daemon's shell, or undefined when it does not say (an older daemon, a failed request). */
export async function shellOf(client: DaemonClient): Promise<ShellInfo | undefined> {
  try {
    return (await client.server()).shell;
  } catch {
    return undefined;
  }
}
