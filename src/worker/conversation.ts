/**
 * The conversation a run works on: the history it reads and the one way it grows. The loop
 * never keeps a history of its own; it reads `items` and hands each step to `append`, which
 * makes it part of the conversation (and, for an owner that persists, durable) before the run
 * goes on.
 *
 * Boundary rule: `MemoryConversation` is the Worker facade's: it appends in memory, tells the
 * observer and takes the step back out when the observer fails. An owner that keeps the history
 * elsewhere (the daemon: the replay of the session's log) implements `Conversation` itself, so
 * there is exactly one copy of the history.
 */
import type { Item } from "../model/items.js";
import type { Usage } from "../model/usage.js";
import { errorMessage, WorkerError } from "./errors.js";
import type { CommitKind, WorkerObserver } from "./observer.js";

/** What the loop knows about a step besides its items. */
export interface AppendHint {
  /**
   * The run ends right after this step: a model answer without tool calls and no `onRunEnd`
   * hook that could continue the run. Nothing else is appended by this run, and `items` is not
   * read again by it, so an owner that persists may make the step durable together with what
   * it writes when the run has ended (one commit instead of two).
   */
  final?: boolean;
  /**
   * A model answer's step: what its request used, as the provider reported it (absent for other
   * steps), so an owner that persists may log it with the answer in one write.
   */
  usage?: Usage;
}

export interface Conversation {
  /** The history as it stands (read-only: only `append` changes it). */
  readonly items: readonly Item[];
  /** Make `items` part of the conversation; the run goes on only once this resolves. */
  append(items: readonly Item[], kind: CommitKind, hint?: AppendHint): Promise<void>;
}

/** A conversation held in memory, reporting each step to an observer (the library's Worker). */
export class MemoryConversation implements Conversation {
  #items: Item[] = [];

  constructor(private readonly observer: () => WorkerObserver) {}

  get items(): readonly Item[] {
    return this.#items;
  }

  /** Replace the whole history (copied). */
  replace(items: readonly Item[]): void {
    this.#items = [...items];
  }

  /** Append one item without telling the observer (the Worker's `pushItem`, before a run). */
  push(item: Item): void {
    this.#items.push(item);
  }

  /**
   * Appends items and awaits the observer. If the observer fails, the items are taken back out,
   * so history holds only steps its owner accepted. The hint changes nothing here: the observer
   * hears of every step as it is appended.
   */
  async append(items: readonly Item[], kind: CommitKind): Promise<void> {
    if (items.length === 0) return;
    const lengthBefore = this.#items.length;
    this.#items.push(...items);
    const observer = this.observer();
    if (observer.onItemsCommitted === undefined) return;
    try {
      await observer.onItemsCommitted(items, kind);
    } catch (error) {
      this.#items.length = lengthBefore;
      throw WorkerError.aborted(`observer onItemsCommitted failed: ${errorMessage(error)}`, error);
    }
  }
}
