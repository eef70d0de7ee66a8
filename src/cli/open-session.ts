/**
 * The session `skein chat` and `skein run` work in: the one named with --session, else the
 * workspace's most recently active one with --continue, else a new one.
 *
 * Boundary rule: choosing and preparing the session only; what the command shows about it is
 * the command's own.
 */
import type { FirstInput } from "../api/inputs.js";
import type { CreatedSession } from "../api/session-creation.js";
import { daemonAnnounces } from "../client/daemon-capabilities.js";
import type { DaemonClient } from "../client/daemon-client.js";
import { uuidV7 } from "../client/uuid-v7.js";
import { resolveSessionId } from "./session-ref.js";
import { type ModelOptions, newSessionSettings, settingsPatch } from "./session-settings-options.js";

/** The options that choose the session (and set up a new one). */
export interface SessionChoice extends ModelOptions {
  session?: string;
  /** The most recently active session of the workspace (a new one if it has none). */
  continue?: boolean;
  /** A new session's name. */
  name?: string;
}

/** An existing session (its settings already changed as asked), or the snapshot of a new one. */
export type OpenedSession =
  | { created: false; sessionId: string }
  | { created: true; snapshot: CreatedSession };

/**
 * Find or create the session `options` choose for `workspace`. A new one gets `firstInput` in
 * its creation (the answer's `input` is its receipt) when the daemon announces it takes one; an
 * existing one does not (send it yourself when the answer has no `input`).
 */
export async function openSession(
  client: DaemonClient,
  workspace: string,
  options: SessionChoice,
  firstInput?: FirstInput,
): Promise<OpenedSession> {
  let existing: string | null = null;
  if (options.session !== undefined) existing = await resolveSessionId(client, options.session);
  else if (options.continue === true) {
    existing = (await client.listSessions()).find((session) => session.workspace === workspace)?.id ?? null;
  }
  if (existing !== null) {
    // An existing session takes the options' model and parameters from its next turn on.
    const patch = settingsPatch(options);
    if (patch !== null) await client.updateSettings(existing, patch);
    return { created: false, sessionId: existing };
  }
  const snapshot = await client.createSession(uuidV7(), {
    workspace,
    ...(options.name === undefined ? {} : { name: options.name }),
    ...newSessionSettings(options),
    // A daemon from before creations took an input (still running after an upgrade) would
    // refuse the field: the command then sends the input by itself.
    ...(firstInput === undefined || !daemonAnnounces(client.home, "creation_input")
      ? {}
      : { input: firstInput }),
  });
  return { created: true, snapshot };
}
