/**
 * Abstract reply → Anthropic Messages SSE: message_start (usage with input split into
 * uncached, cache-read and cache-write counts), a ping, one content block per part (thinking
 * with thinking_delta + one signature_delta, redacted_thinking with its data, text with
 * text_delta, tool_use with input_json_delta pieces), message_delta (stop_reason, output
 * tokens) and message_stop.
 *
 * Boundary rule: pure generator of SSE text.
 */
import { type EncodeContext, hasToolCalls, splitPieces, textDeltas, usageOf } from "./encode-context.js";
import type { StreamReply } from "./reply.js";
import { sse } from "./reply.js";

const stopReasons = { end_turn: "end_turn", max_tokens: "max_tokens", content_filter: "refusal" } as const;

/** The SSE events of `reply` in Anthropic Messages format. */
export function* encodeAnthropic(reply: StreamReply, context: EncodeContext): Generator<string> {
  const event = (type: string, fields: Record<string, unknown>) => sse({ type, ...fields }, type);
  const usage = usageOf(reply);
  const cached = usage.cached ?? 0;
  const written = usage.cacheWrite ?? 0;
  yield event("message_start", {
    message: {
      id: context.nextId("msg"),
      type: "message",
      role: "assistant",
      model: context.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input - cached - written,
        cache_creation_input_tokens: written,
        cache_read_input_tokens: cached,
        output_tokens: 1,
      },
    },
  });
  yield event("ping", {});
  let index = 0;
  for (const part of reply.parts) {
    const at = index++;
    switch (part.type) {
      case "reasoning":
        if (part.redacted === true) {
          yield event("content_block_start", {
            index: at,
            content_block: { type: "redacted_thinking", data: part.encryptedContent ?? "" },
          });
        } else {
          yield event("content_block_start", {
            index: at,
            content_block: { type: "thinking", thinking: "", signature: "" },
          });
          for (const thinking of part.deltas) {
            yield event("content_block_delta", { index: at, delta: { type: "thinking_delta", thinking } });
          }
          if (part.signature !== undefined) {
            context.signThinking?.(part.signature, part.deltas.join(""));
            yield event("content_block_delta", {
              index: at,
              delta: { type: "signature_delta", signature: part.signature },
            });
          }
        }
        break;
      case "text":
      case "text_repeat":
        yield event("content_block_start", { index: at, content_block: { type: "text", text: "" } });
        for (const text of textDeltas(part)) {
          yield event("content_block_delta", { index: at, delta: { type: "text_delta", text } });
        }
        break;
      case "tool_call":
        yield event("content_block_start", {
          index: at,
          content_block: {
            type: "tool_use",
            id: part.id ?? context.nextId("toolu"),
            name: part.name,
            input: {},
          },
        });
        for (const partial_json of splitPieces(part.arguments, part.pieces)) {
          yield event("content_block_delta", {
            index: at,
            delta: { type: "input_json_delta", partial_json },
          });
        }
        break;
      default: {
        const unreachable: never = part;
        throw new Error(`unknown part ${JSON.stringify(unreachable)}`);
      }
    }
    yield event("content_block_stop", { index: at });
  }
  const stopReason =
    reply.finishReason ?? (hasToolCalls(reply) ? "tool_use" : stopReasons[reply.stop ?? "end_turn"]);
  // A refusal says why in `stop_details` (category and explanation, either may be null).
  const details =
    stopReason === "refusal"
      ? { stop_details: { type: "refusal", category: null, explanation: reply.refusalExplanation ?? null } }
      : {};
  yield event("message_delta", {
    delta: { stop_reason: stopReason, stop_sequence: null, ...details },
    usage: { output_tokens: usage.output },
  });
  yield event("message_stop", {});
}
