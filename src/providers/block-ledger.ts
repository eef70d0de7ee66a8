/**
 * Block bookkeeping shared by the protocol parsers: allocates response-unique indices and
 * remembers which blocks are open, so every parser can close (or abort) all of them at the end.
 *
 * Boundary rule: state of one response only; no protocol knowledge.
 */
import type { BlockStart, BlockType, StreamEvent } from "../model/events.js";

/** Open blocks of one response, by normalized index. */
export class BlockLedger {
  private nextIndex = 0;
  private readonly open = new Map<number, BlockType>();

  /** Allocates the next index, records the block as open and emits its `block_start`. */
  start(block: BlockStart, out: StreamEvent[]): number {
    const index = this.nextIndex++;
    this.open.set(index, block.type);
    out.push({ type: "block_start", index, block });
    return index;
  }

  /** Whether the block at `index` is open. */
  isOpen(index: number): boolean {
    return this.open.has(index);
  }

  /** Marks a block closed; the caller emits its `block_stop`. Returns false if it was not open. */
  release(index: number): boolean {
    return this.open.delete(index);
  }

  /** Whether any block is open. */
  get hasOpenBlocks(): boolean {
    return this.open.size > 0;
  }

  /** `block_abort` for each open block (in index order), closing them all. */
  abortAll(reason: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    for (const [index, blockType] of [...this.open].sort((a, b) => a[0] - b[0])) {
      events.push({ type: "block_abort", index, block_type: blockType, reason });
    }
    this.open.clear();
    return events;
  }
}
