/**
 * Abstract reply → OpenAI Responses SSE: `event: <type>` + `data: {type, sequence_number, ...}`
 * for response.created / in_progress, then one output item per part (reasoning with a summary
 * part and `encrypted_content` on its done item; a message with one output_text content part;
 * a function_call with argument deltas), and response.completed (or response.incomplete for a
 * max-tokens or content-filter stop) carrying usage.
 *
 * Boundary rule: pure generator of SSE text.
 */
import {
  type EncodeContext,
  hasToolCalls,
  isTextPart,
  splitPieces,
  textDeltas,
  usageOf,
} from "./encode-context.js";
import type { StreamReply } from "./reply.js";
import { sse } from "./reply.js";

/** The SSE events of `reply` in Responses format. */
export function* encodeResponses(reply: StreamReply, context: EncodeContext): Generator<string> {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    sse({ type, sequence_number: sequence++, ...fields }, type);
  const responseId = context.nextId("resp");
  const output: Record<string, unknown>[] = [];
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: responseId,
    object: "response",
    created_at: 1_700_000_000,
    status,
    model: context.model,
    output,
    ...extra,
  });
  yield event("response.created", { response: response("in_progress") });
  yield event("response.in_progress", { response: response("in_progress") });
  let outputIndex = 0;
  let lastReasoningId: string | undefined;
  for (const part of reply.parts) {
    const at = outputIndex++;
    if (part.type === "reasoning") {
      const id = part.id ?? context.nextId("rs");
      lastReasoningId = id;
      yield event("response.output_item.added", {
        output_index: at,
        item: { id, type: "reasoning", summary: [] },
      });
      const full = part.deltas.join("");
      if (part.deltas.length > 0) {
        yield event("response.reasoning_summary_part.added", {
          item_id: id,
          output_index: at,
          summary_index: 0,
          part: { type: "summary_text", text: "" },
        });
        for (const delta of part.deltas) {
          yield event("response.reasoning_summary_text.delta", {
            item_id: id,
            output_index: at,
            summary_index: 0,
            delta,
          });
        }
        yield event("response.reasoning_summary_text.done", {
          item_id: id,
          output_index: at,
          summary_index: 0,
          text: full,
        });
        yield event("response.reasoning_summary_part.done", {
          item_id: id,
          output_index: at,
          summary_index: 0,
          part: { type: "summary_text", text: full },
        });
      }
      const item: Record<string, unknown> = {
        id,
        type: "reasoning",
        summary: part.deltas.length > 0 ? [{ type: "summary_text", text: full }] : [],
      };
      if (part.encryptedContent !== undefined) item.encrypted_content = part.encryptedContent;
      output.push(item);
      yield event("response.output_item.done", { output_index: at, item });
    } else if (isTextPart(part)) {
      const id = context.nextId("msg");
      if (lastReasoningId !== undefined) context.pairCall?.(id, lastReasoningId);
      const phase = part.type === "text" && part.phase !== undefined ? { phase: part.phase } : {};
      yield event("response.output_item.added", {
        output_index: at,
        item: { id, type: "message", status: "in_progress", role: "assistant", content: [], ...phase },
      });
      yield event("response.content_part.added", {
        item_id: id,
        output_index: at,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      });
      let full = "";
      for (const delta of textDeltas(part)) {
        if (part.type === "text") full += delta;
        yield event("response.output_text.delta", { item_id: id, output_index: at, content_index: 0, delta });
      }
      yield event("response.output_text.done", {
        item_id: id,
        output_index: at,
        content_index: 0,
        text: full,
      });
      const content = { type: "output_text", text: full, annotations: [] };
      yield event("response.content_part.done", {
        item_id: id,
        output_index: at,
        content_index: 0,
        part: content,
      });
      const item = {
        id,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [content],
        ...phase,
      };
      output.push(item);
      yield event("response.output_item.done", { output_index: at, item });
    } else if (part.type === "tool_call") {
      const id = context.nextId("fc");
      const callId = part.id ?? context.nextId("call");
      if (lastReasoningId !== undefined) context.pairCall?.(id, lastReasoningId);
      yield event("response.output_item.added", {
        output_index: at,
        item: {
          id,
          type: "function_call",
          status: "in_progress",
          call_id: callId,
          name: part.name,
          arguments: "",
        },
      });
      for (const delta of splitPieces(part.arguments, part.pieces)) {
        yield event("response.function_call_arguments.delta", { item_id: id, output_index: at, delta });
      }
      yield event("response.function_call_arguments.done", {
        item_id: id,
        output_index: at,
        arguments: part.arguments,
      });
      const item = {
        id,
        type: "function_call",
        status: "completed",
        call_id: callId,
        name: part.name,
        arguments: part.arguments,
      };
      output.push(item);
      yield event("response.output_item.done", { output_index: at, item });
    }
  }
  const usage = usageOf(reply);
  const usageJson = {
    input_tokens: usage.input,
    input_tokens_details: { cached_tokens: usage.cached ?? 0 },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: usage.input + usage.output,
  };
  const stop = hasToolCalls(reply) ? "end_turn" : (reply.stop ?? "end_turn");
  if (reply.finishReason !== undefined) {
    yield event("response.incomplete", {
      response: response("incomplete", {
        usage: usageJson,
        incomplete_details: { reason: reply.finishReason },
      }),
    });
  } else if (stop === "end_turn") {
    yield event("response.completed", { response: response("completed", { usage: usageJson }) });
  } else {
    const reason = stop === "max_tokens" ? "max_output_tokens" : "content_filter";
    yield event("response.incomplete", {
      response: response("incomplete", { usage: usageJson, incomplete_details: { reason } }),
    });
  }
}
