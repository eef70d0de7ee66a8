/**
 * Abstract reply → Gemini `streamGenerateContent?alt=sse`: `data: {GenerateContentResponse}`
 * events separated by CRLF pairs (as Google sends them). Thought deltas are `thought: true`
 * parts (the last one carrying the reasoning signature), text deltas plain text parts,
 * consecutive tool calls one chunk with several `functionCall` parts (args as objects, no id
 * unless the part has one, `thoughtSignature` beside the call), a signed text's signature on a
 * chunk of its own with empty text. `usageMetadata` rides on every chunk (complete on the
 * last), and the last chunk carries `finishReason`.
 *
 * Boundary rule: pure generator of SSE text.
 */
import { type EncodeContext, isTextPart, textDeltas, usageOf } from "./encode-context.js";
import type { ReplyPart, StreamReply } from "./reply.js";
import { sse } from "./reply.js";

const finishReasons = { end_turn: "STOP", max_tokens: "MAX_TOKENS", content_filter: "SAFETY" } as const;

type Part = Record<string, unknown>;

/** The SSE events of `reply` in Gemini format. */
export function* encodeGemini(reply: StreamReply, context: EncodeContext): Generator<string> {
  const usage = usageOf(reply);
  const responseId = context.nextId("gemini");
  const chunk = (parts: Part[], final: boolean) => {
    const candidate: Record<string, unknown> = { content: { role: "model", parts }, index: 0 };
    const usageMetadata: Record<string, unknown> = { promptTokenCount: usage.input };
    if (final) {
      candidate.finishReason = reply.finishReason ?? finishReasons[reply.stop ?? "end_turn"];
      usageMetadata.candidatesTokenCount = usage.output - (usage.reasoning ?? 0);
      usageMetadata.totalTokenCount = usage.input + usage.output;
      if (usage.reasoning !== undefined) usageMetadata.thoughtsTokenCount = usage.reasoning;
      if (usage.cached !== undefined) usageMetadata.cachedContentTokenCount = usage.cached;
    }
    return sse(
      { candidates: [candidate], usageMetadata, modelVersion: context.model, responseId },
      undefined,
      "\r\n",
    );
  };
  // Parts are produced one step ahead so the last chunk can carry the finish reason.
  let held: Part[] | undefined;
  function* emit(parts: Part[]): Generator<string> {
    if (held !== undefined) yield chunk(held, false);
    held = parts;
  }
  let calls: Part[] = [];
  function* flushCalls(): Generator<string> {
    if (calls.length === 0) return;
    const parts = calls;
    calls = [];
    yield* emit(parts);
  }
  for (const part of reply.parts) {
    if (part.type === "tool_call") {
      calls.push(callPart(part));
      continue;
    }
    yield* flushCalls();
    if (part.type === "reasoning") {
      const last = part.deltas.length - 1;
      for (const [position, text] of part.deltas.entries()) {
        const thought: Part = { text, thought: true };
        if (position === last && part.signature !== undefined) thought.thoughtSignature = part.signature;
        yield* emit([thought]);
      }
    } else if (isTextPart(part)) {
      for (const text of textDeltas(part)) yield* emit([{ text }]);
      // Gemini 3 streams a text's signature on a chunk of its own with empty text.
      if (part.type === "text" && part.signature !== undefined) {
        yield* emit([{ text: "", thoughtSignature: part.signature }]);
      }
    }
  }
  yield* flushCalls();
  yield chunk(held ?? [], true);
}

function callPart(part: Extract<ReplyPart, { type: "tool_call" }>): Part {
  let args: unknown;
  try {
    args = JSON.parse(part.arguments);
  } catch {
    throw new Error(
      `the Gemini encoder needs JSON tool arguments, got ${part.arguments}; use raw() for garbage`,
    );
  }
  const functionCall: Record<string, unknown> = { name: part.name, args };
  if (part.id !== undefined) functionCall.id = part.id;
  const wirePart: Part = { functionCall };
  if (part.signature !== undefined) wirePart.thoughtSignature = part.signature;
  return wirePart;
}
