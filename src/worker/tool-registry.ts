/**
 * The Worker's tools: definitions queue up while the Worker is mutable and are materialised by
 * `lock()`, so the tool list a locked Worker sends never changes mid-lock.
 *
 * Boundary rule: owns name → tool lookup and the sorted tool list; knows nothing of runs.
 */
import type { Tool, ToolDefinition, ToolMeta } from "../model/tools.js";
import { DuplicateToolNameError } from "./errors.js";

export interface RegisteredTool {
  meta: ToolMeta;
  tool: Tool;
}

export class ToolRegistry {
  private pending: ToolDefinition[] = [];
  private readonly tools = new Map<string, RegisteredTool>();
  private sortedMetas: readonly ToolMeta[] = [];

  /** Queues a definition; its factory runs at the next `materialise()`. */
  register(definition: ToolDefinition): void {
    this.pending.push(definition);
  }

  /**
   * Runs the queued factories. All or nothing: on a duplicate name (or a factory that throws) no
   * queued tool is added and the queue is dropped, so the Worker stays usable with its old tools.
   */
  materialise(): void {
    const queued = this.pending;
    this.pending = [];
    if (queued.length === 0) return;
    const added = new Map<string, RegisteredTool>();
    for (const definition of queued) {
      const { meta, tool } = definition();
      if (this.tools.has(meta.name) || added.has(meta.name)) throw new DuplicateToolNameError(meta.name);
      added.set(meta.name, { meta, tool });
    }
    for (const [name, entry] of added) this.tools.set(name, entry);
    // Compare by code unit, not locale, so the order (and the prompt prefix) is byte-stable everywhere.
    this.sortedMetas = [...this.tools.values()]
      .map((entry) => entry.meta)
      .filter((meta) => meta.unlisted !== true)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The materialised tool with this name, if any. */
  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  /** Materialised tool descriptions, sorted by name (the unlisted ones left out: the model is not offered them). */
  metas(): readonly ToolMeta[] {
    return this.sortedMetas;
  }
}
