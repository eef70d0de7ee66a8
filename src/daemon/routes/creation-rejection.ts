/**
 * Refused session creations, remembered: a `PUT /sessions/{id}` refused for what it asked (400:
 * a workspace that is no directory, an unknown provider profile or checkpoint; 404: an unknown
 * fork source) is recorded, and a later `GET /sessions/{id}` answers 404 with that decision
 * instead of a bare "not found". A successful creation of the id forgets it.
 *
 * Boundary rule: translation between the routes and the rejected_creations table; the refusal
 * itself is decided elsewhere. Refusals about the request rather than the session (a missing
 * If-None-Match, a malformed or expired id, an id that exists) are not remembered.
 */
import type { RejectedCreationBody } from "../../api/problem.js";
import { SessionNotFoundError } from "../../log/errors.js";
import { ProblemError } from "../http/problem.js";
import type { RejectedCreation } from "../storage/rejected-creations-table.js";
import type { SessionStorage } from "../storage/session-storage.js";
import { toDaemonProblem } from "./daemon-problem.js";

/** 404 for a session that does not exist because its creation was refused; the body says why. */
class RejectedCreationProblem extends ProblemError {
  constructor(readonly rejection: RejectedCreation) {
    super(
      404,
      "resource_not_found",
      `session ${rejection.id} does not exist: its creation was refused (${rejection.status} ${rejection.code}: ${rejection.detail})`,
    );
  }

  override body(): RejectedCreationBody {
    return {
      ...super.body(),
      rejected_creation: {
        status: this.rejection.status,
        code: this.rejection.code,
        detail: this.rejection.detail,
        rejected_at: new Date(this.rejection.rejectedAt).toISOString(),
      },
    };
  }
}

/** Run the creation of session `id`; a 400 or 404 it is refused with is remembered, then thrown as a problem. */
export async function rememberRefusal<T>(
  storage: SessionStorage,
  id: string,
  now: number,
  create: () => Promise<T>,
): Promise<T> {
  try {
    return await create();
  } catch (error) {
    const answer = toDaemonProblem(error);
    if (answer instanceof ProblemError && (answer.status === 400 || answer.status === 404)) {
      try {
        await storage.recordRejection({
          id,
          rejectedAt: now,
          status: answer.status,
          code: answer.code,
          detail: answer.detail,
        });
      } catch {
        // Remembering is a courtesy for a later GET; the client still gets this answer now.
      }
    }
    throw answer;
  }
}

/** Run a read of session `id`; when the session is unknown but its creation was refused, throw why. */
export async function explainUnknown<T>(
  storage: SessionStorage,
  id: string,
  now: number,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof SessionNotFoundError) || error.sessionId !== id) throw error;
    const rejection = await storage.getRejection(id, now);
    throw rejection === null ? error : new RejectedCreationProblem(rejection);
  }
}
