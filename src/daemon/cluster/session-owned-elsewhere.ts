/** Another node holds a live lease on the session. */
export class SessionOwnedElsewhereError extends Error {
  constructor(
    readonly sessionId: string,
    readonly owner: string,
  ) {
    super(`session ${sessionId} is owned by node ${owner}`);
    this.name = "SessionOwnedElsewhereError";
  }
}
