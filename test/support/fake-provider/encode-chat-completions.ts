/**
 * Abstract reply → OpenAI Chat Completions SSE: `data: {chat.completion.chunk}` lines without
 * `event:` fields, the role in the first delta, text in `delta.content`, reasoning in
 * `delta.reasoning_content` (or `delta.reasoning`; Mistral's typed `thinking`/`text` parts in
 * a `delta.content` array; a raw `<think>…</think>` prefix of the content), tool calls
 * announced by index with id and name and then their arguments in pieces interleaved across
 * calls (Ollama: each call whole in one chunk, every one at index 0 with its own id), a
 * `finish_reason` chunk, a usage chunk with empty `choices` (as with
 * `stream_options.include_usage`; xAI counts reasoning beside `completion_tokens`), then `[DONE]`.
 *
 * Boundary rule: pure generator of SSE text.
 */
import { type EncodeContext, hasToolCalls, splitPieces, textDeltas, usageOf } from "./encode-context.js";
import type { ReplyPart, StreamReply } from "./reply.js";
import { sse } from "./reply.js";

const finishReasons = { end_turn: "stop", max_tokens: "length", content_filter: "content_filter" } as const;

/** The SSE events of `reply` in Chat Completions format. */
export function* encodeChatCompletions(reply: StreamReply, context: EncodeContext): Generator<string> {
  const id = context.nextId("chatcmpl");
  const chunk = (choice: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}) =>
    sse({
      id,
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: context.model,
      choices: choice === undefined ? [] : [{ index: 0, ...choice }],
      ...extra,
    });
  // Some servers send `finish_reason: ""` (not null) on every chunk before the last.
  const pending = reply.finishReason === "" ? "" : null;
  const delta = (fields: Record<string, unknown>) => chunk({ delta: fields, finish_reason: pending });
  yield delta({ role: "assistant", content: "" });
  const reasoningField = reply.reasoningField ?? "reasoning_content";
  let toolIndex = 0;
  let pendingCalls: Extract<ReplyPart, { type: "tool_call" }>[] = [];
  let thinkOpen = false;
  function* flushCalls(): Generator<string> {
    if (pendingCalls.length === 0) return;
    if (reply.toolCallStyle === "ollama") {
      for (const call of pendingCalls) {
        const wire = { name: call.name, arguments: call.arguments };
        const id = call.id ?? context.nextId("call");
        yield delta({
          role: "assistant",
          content: "",
          tool_calls: [{ id, index: 0, type: "function", function: wire, ...googleSignature(call) }],
        });
      }
      pendingCalls = [];
      return;
    }
    const calls = pendingCalls.map((call) => ({
      index: toolIndex++,
      id: call.id ?? context.nextId("call"),
      name: call.name,
      pieces: splitPieces(call.arguments, call.pieces),
      extra: googleSignature(call),
    }));
    pendingCalls = [];
    for (const call of calls) {
      yield delta({
        tool_calls: [
          {
            index: call.index,
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: "" },
            ...call.extra,
          },
        ],
      });
    }
    const rounds = Math.max(...calls.map((call) => call.pieces.length));
    for (let round = 0; round < rounds; round++) {
      for (const call of calls) {
        const piece = call.pieces[round];
        if (piece !== undefined)
          yield delta({ tool_calls: [{ index: call.index, function: { arguments: piece } }] });
      }
    }
  }
  for (const part of reply.parts) {
    if (part.type === "tool_call") {
      pendingCalls.push(part);
      continue;
    }
    yield* flushCalls();
    if (part.type === "reasoning") {
      for (const text of part.deltas) {
        if (reasoningField === "mistral") {
          yield delta({ content: [{ type: "thinking", thinking: [{ type: "text", text }] }] });
        } else if (reasoningField === "think_tags") {
          yield delta({ content: thinkOpen ? text : `<think>${text}` });
          thinkOpen = true;
        } else {
          yield delta({ content: null, [reasoningField]: text });
        }
      }
    } else {
      for (const text of textDeltas(part)) {
        if (reasoningField === "mistral") yield delta({ content: [{ type: "text", text }] });
        else if (thinkOpen) {
          thinkOpen = false;
          yield delta({ content: `</think>\n\n${text}` });
        } else yield delta({ content: text });
      }
    }
  }
  if (thinkOpen) yield delta({ content: "</think>" });
  // OpenRouter streams each detail in pieces sharing its index; here each text in two.
  for (const [index, detail] of (reply.reasoningDetails ?? []).entries()) {
    const text = typeof detail.text === "string" ? detail.text : undefined;
    if (text === undefined) {
      yield delta({ reasoning_details: [{ index, ...detail }] });
      continue;
    }
    const half = Math.ceil(text.length / 2);
    yield delta({ reasoning_details: [{ index, ...detail, text: text.slice(0, half) }] });
    yield delta({ reasoning_details: [{ index, type: detail.type, text: text.slice(half) }] });
  }
  yield* flushCalls();
  const finish =
    reply.finishReason === undefined || reply.finishReason === ""
      ? hasToolCalls(reply)
        ? "tool_calls"
        : finishReasons[reply.stop ?? "end_turn"]
      : reply.finishReason;
  yield chunk({ delta: {}, finish_reason: finish });
  const usage = usageOf(reply);
  const reasoningApart = reply.usageStyle === "xai" ? (usage.reasoning ?? 0) : 0;
  const usageJson: Record<string, unknown> = {
    prompt_tokens: usage.input,
    completion_tokens: usage.output - reasoningApart,
    total_tokens: usage.input + usage.output,
  };
  if (usage.cached !== undefined) usageJson.prompt_tokens_details = { cached_tokens: usage.cached };
  if (usage.reasoning !== undefined)
    usageJson.completion_tokens_details = { reasoning_tokens: usage.reasoning };
  yield chunk(undefined, { usage: usageJson });
  yield sse("[DONE]");
}

/** Google's OpenAI-compatible endpoint puts a call's thought signature in `extra_content.google`. */
function googleSignature(call: Extract<ReplyPart, { type: "tool_call" }>): Record<string, unknown> {
  return call.signature === undefined
    ? {}
    : { extra_content: { google: { thought_signature: call.signature } } };
}
