/**
 * One one-shot session on a Skein daemon through its HTTP API, the steps `skein run "hi"` takes
 * without the CLI process: create the session (`PUT /sessions/{id}`), attach to its stream
 * (`GET /sessions/{id}`), send the prompt (`PUT /sessions/{id}/inputs/{iid}`), wait for the
 * turn's `turn_completed`, detach. bench/opencode.ts drives opencode the same way through its API.
 */
import { v7 as uuidv7 } from "uuid";
import { rawRequest } from "../test/e2e/support/daemon-harness.js";
import { type Endpoint, follow, followedTurn, now } from "./daemon-support.js";
import type { OneShotSeen } from "./opencode-client.js";

/** Thrown when the daemon refuses to create the session. */
export class SessionCreateError extends Error {
  constructor(status: number, body: string) {
    super(`create session: ${status} ${body.slice(0, 500)}`);
  }
}

/** One one-shot session in `workspace`: create, attach, prompt "hi", wait for the turn's end, detach. */
export async function skeinOneShot(app: Endpoint, workspace: string): Promise<OneShotSeen> {
  const start = now();
  const session = uuidv7();
  const created = await rawRequest(app.port, {
    method: "PUT",
    path: `/sessions/${session}`,
    headers: {
      authorization: `Bearer ${app.token}`,
      "content-type": "application/json",
      "if-none-match": "*",
    },
    body: JSON.stringify({ kind: "new", workspace }),
  });
  if (created.status !== 201) throw new SessionCreateError(created.status, created.text);
  const follower = await follow(app, session);
  try {
    const sentAt = now();
    const seen = await followedTurn(app, session, follower, "hi");
    return {
      firstTextMs: seen.firstTextAt === null ? null : seen.firstTextAt - sentAt,
      totalMs: now() - start,
    };
  } finally {
    follower.close();
  }
}
