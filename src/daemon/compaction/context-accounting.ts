/**
 * How full a session's context is: the prompt size the provider reported for the last response
 * plus that response's output, plus an estimate of what was appended after it; before the first
 * response (and after a compaction or a reload) an estimate of the whole context. Estimates are
 * scaled by how far off the last one was from the provider's count for the same request, so
 * they follow the model's tokenizer after the first response.
 *
 * Boundary rule: in memory, per loaded session; rebuilt from estimates after a reload (nothing
 * is stored). It reads the replayed state and never changes it.
 */
import type { RestoredState } from "../../log/restored-state.js";
import { cachedEntry } from "../../model/cached-entry.js";
import type { Item } from "../../model/items.js";
import { estimateItemsTokens, estimateItemTokens, estimateTextTokens } from "../../model/token-estimate.js";
import type { ToolMeta } from "../../model/tools.js";
import type { Usage } from "../../model/usage.js";
import { GrowingEstimate } from "./growing-estimate.js";

/** The context's size in tokens, and whether provider usage backs it. */
export interface ContextSize {
  tokens: number;
  estimated: boolean;
}

/** What the provider said of the last response, and which context it covered. */
interface KnownSize {
  tokens: number;
  /** History length once the response was appended. */
  coveredLength: number;
  /** The latest compaction when it was measured (a newer one makes it stale). */
  compaction: number | null;
}

/** What a provider's wire format adds around one tool definition (keys, braces, type tags). */
const toolFraming = 12;

/** Bounds of the correction factor (a wild usage report must not wreck every later estimate). */
const minRatio = 0.25;
const maxRatio = 4;

export class ContextAccount {
  #known: KnownSize | null = null;
  #ratio = 1;
  /** Estimated tokens of the system prompt and the tool definitions of the last request. */
  #overhead = 0;
  /** The estimate of the request being sent, to compare with the provider's count. */
  #sentEstimate: number | null = null;
  #lastSent: number | null = null;
  /** The estimate of the items of the requests sent, which grow by what each turn appends. */
  readonly #sentItems = new GrowingEstimate();

  /** Estimated tokens of one item, scaled to the model's tokenizer as far as known. */
  readonly itemTokens = (item: Item): number => Math.ceil(estimateItemTokens(item) * this.#ratio);

  /**
   * Remember the system prompt and the number of tools a turn sends with every request (their
   * share of the prompt; a tool definition is counted at a flat size, the correction factor
   * absorbs the difference once the provider has counted a prompt).
   */
  setOverhead(systemPrompt: string | null, tools: readonly ToolMeta[]): void {
    let overhead = estimateTextTokens(systemPrompt ?? "");
    for (const tool of tools) overhead += toolFraming + toolTokens(tool);
    this.#overhead = overhead;
  }

  /** Estimated tokens of the system prompt and tools (scaled). */
  get overhead(): number {
    return Math.ceil(this.#overhead * this.#ratio);
  }

  /** The size of the context `state` holds, as the next request would send it. */
  size(state: Readonly<RestoredState>): ContextSize {
    const known = this.#known;
    const compaction = state.last_compaction?.position ?? null;
    if (known !== null && known.compaction === compaction && known.coveredLength <= state.history.length) {
      const tail = state.history.slice(known.coveredLength);
      return { tokens: known.tokens + Math.ceil(estimateItemsTokens(tail) * this.#ratio), estimated: false };
    }
    return {
      tokens: Math.ceil((estimateItemsTokens(state.history) + this.#overhead) * this.#ratio),
      estimated: true,
    };
  }

  /** A request is about to be sent with `items` (after any compaction). */
  sending(items: readonly Item[]): void {
    this.#sentEstimate = this.#sentItems.of(items) + this.#overhead;
    this.#lastSent = Math.ceil(this.#sentEstimate * this.#ratio);
  }

  /** The estimated size of the last request sent (what a provider refused, after an overflow). */
  get lastSentTokens(): number | null {
    return this.#lastSent;
  }

  /** The provider's usage of the response just appended to `state`. */
  observe(state: Readonly<RestoredState>, usage: Usage): void {
    const prompt = usage.input_tokens;
    if (prompt === undefined || prompt <= 0) return;
    if (this.#sentEstimate !== null && this.#sentEstimate > 0) {
      this.#ratio = Math.min(maxRatio, Math.max(minRatio, prompt / this.#sentEstimate));
    }
    this.#sentEstimate = null;
    this.#known = {
      tokens: prompt + (usage.output_tokens ?? 0),
      coveredLength: state.history.length,
      compaction: state.last_compaction?.position ?? null,
    };
  }
}

/**
 * Estimated tokens of each tool definition, by its meta: a turn's tools are made anew, but their
 * metas are kept while the tool stays the same (tools/tool-kind.ts, mcp/mcp-tool.ts, the task
 * tool per agent catalog), and serializing every schema on every turn was a visible share of a
 * plain turn's work.
 */
const toolTokensByMeta = new WeakMap<ToolMeta, number>();

function toolTokens(tool: ToolMeta): number {
  return cachedEntry(toolTokensByMeta, tool, () =>
    estimateTextTokens(tool.name + tool.description + JSON.stringify(tool.input_schema)),
  );
}
