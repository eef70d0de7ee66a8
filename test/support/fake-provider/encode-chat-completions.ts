/**
 * Abstract reply → OpenAI Chat Completions SSE: `data: {chat.completion.chunk}` lines without
 * `event:` fields, the role in the first delta, text in `delta.content`, reasoning in
 * `delta.reasoning_content` (or `delta.reasoning`), tool calls announced by index with id and
 * name and then their arguments in pieces interleaved across calls, a `finish_reason` chunk,
 * a usage chunk with empty `choices` (as with `stream_options.include_usage`), then `[DONE]`.
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
  const delta = (fields: Record<string, unknown>) => chunk({ delta: fields, finish_reason: null });
  yield delta({ role: "assistant", content: "" });
  const reasoningField = reply.reasoningField ?? "reasoning_content";
  let toolIndex = 0;
  let pendingCalls: Extract<ReplyPart, { type: "tool_call" }>[] = [];
  function* flushCalls(): Generator<string> {
    if (pendingCalls.length === 0) return;
    const calls = pendingCalls.map((call) => ({
      index: toolIndex++,
      id: call.id ?? context.nextId("call"),
      name: call.name,
      pieces: splitPieces(call.arguments, call.pieces),
    }));
    pendingCalls = [];
    for (const call of calls) {
      yield delta({
        tool_calls: [
          { index: call.index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
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
      for (const text of part.deltas) yield delta({ content: null, [reasoningField]: text });
    } else {
      for (const text of textDeltas(part)) yield delta({ content: text });
    }
  }
  yield* flushCalls();
  const finish = hasToolCalls(reply) ? "tool_calls" : finishReasons[reply.stop ?? "end_turn"];
  yield chunk({ delta: {}, finish_reason: finish });
  const usage = usageOf(reply);
  const usageJson: Record<string, unknown> = {
    prompt_tokens: usage.input,
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
  };
  if (usage.cached !== undefined) usageJson.prompt_tokens_details = { cached_tokens: usage.cached };
  if (usage.reasoning !== undefined)
    usageJson.completion_tokens_details = { reasoning_tokens: usage.reasoning };
  yield chunk(undefined, { usage: usageJson });
  yield sse("[DONE]");
}
