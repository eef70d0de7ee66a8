/**
 * The summary a compaction writes: the session's own model, given a fixed instruction and the
 * part of the conversation to summarize as a plain transcript, answers with the summary text.
 * A transcript too long for one request is summarized in pieces, each request carrying the
 * summary so far (a rolling summary); a piece the provider still finds too long is halved.
 *
 * Why a plain transcript: it is a single user message with no tools, no tool calls and no
 * reasoning payloads, so every provider takes it whatever the conversation held (no pairing
 * rules, no signatures to keep valid), and the model cannot answer with a tool call.
 *
 * Boundary rule: one provider request per piece, through the session's bound client; nothing
 * is written here. Failures are thrown: `LlmClientError` from the provider, `SummaryError`
 * for an unusable answer.
 */
import { isCompactionSummary } from "../../log/compaction-summary.js";
import { type Item, messageText, userMessage } from "../../model/items.js";
import { type LlmClient, LlmClientError } from "../../model/llm-client.js";
import type { RequestConfig } from "../../model/request-config.js";
import { estimateTextTokens } from "../../model/token-estimate.js";
import { unreachable } from "../../model/unreachable.js";
import { addUsage, mergeUsage, type Usage } from "../../model/usage.js";
import { isContextOverflow } from "../../providers/context-overflow.js";

/** The instruction every summary request is sent with (its system prompt). Documented in docs/architecture.md. */
const compactionPrompt = [
  "You are compacting the history of a conversation between a user and an AI coding agent so the agent can go on with less context.",
  "Write a summary that lets the agent continue the work without the original messages. Keep:",
  "- the user's goals, requests and constraints, in their own words where they matter;",
  "- decisions made and why; what was tried and failed;",
  "- files, paths, commands, identifiers, values and errors that later work needs, exactly;",
  "- the state of the task: what is done, what is in progress, what remains.",
  "Drop pleasantries, repetition and tool output that no longer matters. Write plain text, at most about the length asked for.",
  "Answer with the summary only.",
].join("\n");

/** What the summarizer needs: the session's model and how large a request and an answer may be. */
export interface SummaryBudget {
  /** Most estimated tokens of transcript one request may carry. */
  pieceTokens: number;
  /** The summary's output limit (`max_tokens` of each request). */
  summaryTokens: number;
}

/** The summary and the token usage of the requests that made it. */
export interface SummaryResult {
  summary: string;
  usage: Usage;
  requests: number;
}

/** The model answered with no usable summary. */
class SummaryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SummaryError";
  }
}

/** How many times a piece the provider refuses as too long is halved before giving up. */
const maxSplits = 6;

/** Summarize `items` with `client`, in as many pieces as the budget needs. */
export async function summarizeItems(
  client: LlmClient,
  items: readonly Item[],
  budget: SummaryBudget,
  signal: AbortSignal,
): Promise<SummaryResult> {
  const blocks = items.map((item) => renderItem(item, budget.pieceTokens)).filter((block) => block !== "");
  const result: SummaryResult = { summary: "", usage: {}, requests: 0 };
  for (const piece of pieces(blocks, budget.pieceTokens)) {
    await summarizePiece(client, piece, budget, signal, result, 0);
  }
  if (result.summary.trim() === "")
    throw new SummaryError("the model answered the summary request with no text");
  return result;
}

async function summarizePiece(
  client: LlmClient,
  blocks: readonly string[],
  budget: SummaryBudget,
  signal: AbortSignal,
  result: SummaryResult,
  depth: number,
): Promise<void> {
  try {
    const answer = await requestSummary(client, result.summary, blocks.join("\n\n"), budget, signal);
    result.usage = addUsage(result.usage, answer.usage);
    result.requests += 1;
    result.summary = answer.text.trim();
  } catch (error) {
    const tooLong = error instanceof LlmClientError && isContextOverflow(error);
    if (!tooLong || depth >= maxSplits) throw error;
    // The estimate was off for this model: the same text in two halves, one after the other.
    const halves: string[][] =
      blocks.length > 1
        ? [blocks.slice(0, Math.ceil(blocks.length / 2)), blocks.slice(Math.ceil(blocks.length / 2))]
        : halveText(blocks[0] ?? "").map((half) => [half]);
    for (const half of halves) await summarizePiece(client, half, budget, signal, result, depth + 1);
  }
}

/** One summary request: the summary so far (if any) and one piece of transcript. */
async function requestSummary(
  client: LlmClient,
  earlier: string,
  transcript: string,
  budget: SummaryBudget,
  signal: AbortSignal,
): Promise<{ text: string; usage: Usage }> {
  const intro =
    earlier === ""
      ? "Summarize this part of the conversation."
      : `Here is the summary of the conversation so far:\n\n<summary>\n${earlier}\n</summary>\n\nRewrite it as one summary that also covers the next part of the conversation below.`;
  const words = Math.max(50, Math.floor(budget.summaryTokens * 0.6));
  const text = `${intro}\n\n<conversation>\n${transcript}\n</conversation>\n\nAnswer with the summary only, in at most about ${words} words.`;
  // Only the output limit: the session's sampling and reasoning settings may not fit a short
  // answer (a thinking budget must stay below max_tokens).
  const config: RequestConfig = { max_tokens: budget.summaryTokens };
  let answer = "";
  let usage: Usage = {};
  for await (const event of client.stream(
    { system_prompt: compactionPrompt, items: [userMessage(text)], tools: [], config },
    signal,
  )) {
    if (event.type === "block_delta" && event.delta.type === "text") answer += event.delta.text;
    else if (event.type === "usage") usage = mergeUsage(usage, event.usage);
    else if (event.type === "error") {
      throw new LlmClientError(
        "api",
        client.provider,
        event.message,
        event.code === undefined ? {} : { code: event.code },
      );
    }
  }
  return { text: answer, usage };
}

/** The transcript text of one item; reasoning is left out (it is the model's own scratch work). */
function renderItem(item: Item, maxTokens: number): string {
  const cut = (text: string) => shorten(text, Math.max(64, Math.floor(maxTokens / 2)) * 4);
  switch (item.type) {
    case "message": {
      const text = messageText(item);
      if (isCompactionSummary(item)) return `[Summary of what came before]\n${cut(text)}`;
      const who = item.role === "user" ? "User" : item.role === "assistant" ? "Assistant" : "System";
      return text.trim() === "" ? "" : `${who}: ${cut(text)}`;
    }
    case "tool_call":
      return `Assistant called tool ${item.name} (call ${item.call_id}) with ${cut(item.arguments)}`;
    case "tool_result":
      return `Tool result for call ${item.call_id}${item.is_error === true ? " (error)" : ""}: ${cut(item.output)}`;
    case "reasoning":
      return "";
    default:
      unreachable(item, "unknown item");
  }
}

/** `text` cut to about `chars` characters, keeping its start and its end. */
function shorten(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const half = Math.floor(chars / 2);
  return `${text.slice(0, half)}\n[… ${text.length - 2 * half} characters left out …]\n${text.slice(-half)}`;
}

/** Consecutive blocks grouped so each group's estimate stays within `tokens` (a block alone may exceed it). */
function pieces(blocks: readonly string[], tokens: number): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const block of blocks) {
    const cost = estimateTextTokens(block) + 1;
    if (current.length > 0 && size + cost > tokens) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(block);
    size += cost;
  }
  if (current.length > 0) out.push(current);
  return out;
}

function halveText(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)];
}
