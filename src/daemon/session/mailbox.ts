/**
 * A session actor's mailbox: tasks run one at a time, in arrival order, each to completion
 * (awaits included) before the next starts. Everything that reads or writes a session's log
 * goes through it, so a snapshot and the cursor it is sent with always agree.
 */
export class Mailbox {
  #tail: Promise<unknown> = Promise.resolve();

  /** Queue `task`; resolves or rejects with its result. A failed task does not stop later ones. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(task);
    // The tail settles to nothing: an idle session must not keep its last task's result (a
    // snapshot, say) alive until its next task.
    this.#tail = result.then(settled, settled);
    return result;
  }

  /** Resolves once every task queued so far has finished. */
  idle(): Promise<void> {
    return this.#tail.then(() => undefined);
  }
}

function settled(): undefined {
  return undefined;
}
