/**
 * One turn's trace: a span for the turn, with children for each model request (named and
 * attributed as the GenAI semantic conventions say), each tool call (its approval as a child),
 * each commit of the turn's entries (with the hash of the last entry written) and each
 * compaction. The turn's log entries carry the trace and span id of the turn (`ids`), and the
 * turn's span carries the hash of its last entry, so a trace and the hash chain check each other.
 *
 * Boundary rule: made only by `Tracing.turn` (tracing.ts); its owner calls it from the turn's
 * own callbacks, in order. A span left open when the turn ends (a request or a tool the end cut
 * short) is ended then, marked failed.
 */
import {
  type Attributes,
  type Context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { ToolCallItem } from "../../model/items.js";
import type { Usage } from "../../model/usage.js";

/** What a turn's log entries carry of its trace. */
export interface TraceIds {
  trace_id: string;
  span_id: string;
}

interface TurnTraceOptions {
  sessionId: string;
  turnId: string;
  inputIds: readonly string[];
  /** The admissions of the turn's other inputs. */
  links: Link[];
}

/** A commit's span: ended with where the entries went, or with the error that refused them. */
export interface CommitSpan {
  written(firstPosition: number, lastPosition: number, headHash: string | null): void;
  failed(error: unknown): void;
}

/** The GenAI conventions' provider names for the daemon's provider labels. */
const genAiProviders: Readonly<Record<string, string>> = { gemini: "gcp.gemini" };

export class TurnTrace {
  readonly ids: TraceIds;
  readonly #tracer: Tracer;
  readonly #span: Span;
  readonly #context: Context;
  readonly #sessionId: string;
  #request: Span | null = null;
  #stopReasons: string[] = [];
  readonly #tools = new Map<string, { span: Span; context: Context }>();

  constructor(tracer: Tracer, parent: Context, options: TurnTraceOptions) {
    this.#tracer = tracer;
    this.#sessionId = options.sessionId;
    this.#span = tracer.startSpan(
      "invoke_agent skein",
      {
        kind: SpanKind.INTERNAL,
        links: options.links,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": "skein",
          "gen_ai.conversation.id": options.sessionId,
          "skein.session.id": options.sessionId,
          "skein.run.id": options.turnId,
          "skein.input.ids": [...options.inputIds],
        },
      },
      parent,
    );
    this.#context = trace.setSpan(parent, this.#span);
    const { traceId, spanId } = this.#span.spanContext();
    this.ids = { trace_id: traceId, span_id: spanId };
  }

  /** Model request `request` (the session's count) to `provider`'s `model` goes out. */
  requestStarted(request: number, provider: string, model: string): void {
    this.#endRequest("superseded");
    const system = genAiProviders[provider] ?? provider;
    this.#stopReasons = [];
    this.#request = this.#child(`chat ${model}`, SpanKind.CLIENT, {
      "gen_ai.operation.name": "chat",
      "gen_ai.system": system,
      "gen_ai.provider.name": system,
      "gen_ai.request.model": model,
      "gen_ai.conversation.id": this.#sessionId,
      "skein.request.number": request,
    });
  }

  /** The response being streamed said why it stopped. */
  requestStopped(reason: string): void {
    if (!this.#stopReasons.includes(reason)) this.#stopReasons.push(reason);
  }

  /** The request's response was committed, with its token usage. */
  requestEnded(usage: Usage): void {
    const span = this.#request;
    if (span === null) return;
    this.#request = null;
    span.setAttributes(usageAttributes(usage));
    if (this.#stopReasons.length > 0) span.setAttribute("gen_ai.response.finish_reasons", this.#stopReasons);
    span.end();
  }

  /** The model called a tool: its span starts (its approval and its run are inside). */
  toolCalled(call: ToolCallItem): void {
    const server = call.name.includes("__") ? call.name.slice(0, call.name.indexOf("__")) : null;
    const span = this.#child(`execute_tool ${call.name}`, SpanKind.INTERNAL, {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": call.name,
      "gen_ai.tool.call.id": call.call_id,
      "gen_ai.tool.type": "function",
      ...(server === null ? {} : { "skein.mcp.server": server }),
    });
    this.#tools.set(call.call_id, { span, context: trace.setSpan(this.#context, span) });
  }

  /** The call's approval is being decided (by policy, or by waiting for a person): ended with the decision. */
  approval(callId: string): (decision: string) => void {
    const tool = this.#tools.get(callId);
    const span = this.#tracer.startSpan(
      "skein.approval",
      { kind: SpanKind.INTERNAL },
      tool?.context ?? this.#context,
    );
    return (decision) => {
      span.setAttribute("skein.approval.decision", decision);
      span.end();
    };
  }

  /** The call's tool is done (or will not run: `outcome` says why). */
  toolEnded(callId: string, outcome: { isError: boolean; reason?: string }): void {
    const tool = this.#tools.get(callId);
    if (tool === undefined) return;
    this.#tools.delete(callId);
    if (outcome.reason !== undefined) tool.span.setAttribute("skein.tool.outcome", outcome.reason);
    if (outcome.isError) tool.span.setStatus({ code: SpanStatusCode.ERROR });
    tool.span.end();
  }

  /** A commit of the turn's entries begins. */
  commitStarted(entries: number): CommitSpan {
    const span = this.#child("skein.commit", SpanKind.INTERNAL, { "skein.log.entries": entries });
    return {
      written(first, last, headHash) {
        span.setAttributes({ "skein.log.first_position": first, "skein.log.last_position": last });
        if (headHash !== null) span.setAttribute("skein.log.entry_hash", headHash);
        span.end();
      },
      failed(error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  /** A compaction of the session's context begins; the answer ends it (with the error, when it failed). */
  compactionStarted(): (error?: unknown) => void {
    const span = this.#child("skein.compaction", SpanKind.INTERNAL, {});
    return (error) => {
      if (error !== undefined) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    };
  }

  /** The turn ended `state` (its end logged with `headHash` last, or null when never logged). */
  end(state: string, outcome: string, errorCode: string | null, headHash: string | null): void {
    this.#endRequest(errorCode ?? "turn ended");
    for (const callId of [...this.#tools.keys()])
      this.toolEnded(callId, { isError: true, reason: "turn ended" });
    this.#span.setAttributes({ "skein.turn.state": state, "skein.turn.outcome": outcome });
    if (headHash !== null) this.#span.setAttribute("skein.log.entry_hash", headHash);
    if (errorCode !== null) {
      this.#span.setAttribute("error.type", errorCode);
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode });
    }
    this.#span.end();
  }

  #child(name: string, kind: SpanKind, attributes: Attributes): Span {
    return this.#tracer.startSpan(name, { kind, attributes }, this.#context);
  }

  /** A request span still open (its response never committed) ends failed. */
  #endRequest(why: string): void {
    const span = this.#request;
    if (span === null) return;
    this.#request = null;
    span.setAttribute("error.type", why);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
}

function usageAttributes(usage: Usage): Attributes {
  const attributes: Attributes = {};
  if (usage.input_tokens !== undefined) attributes["gen_ai.usage.input_tokens"] = usage.input_tokens;
  if (usage.output_tokens !== undefined) attributes["gen_ai.usage.output_tokens"] = usage.output_tokens;
  if (usage.cache_read_tokens !== undefined)
    attributes["gen_ai.usage.cache_read.input_tokens"] = usage.cache_read_tokens;
  if (usage.cache_write_tokens !== undefined)
    attributes["gen_ai.usage.cache_creation.input_tokens"] = usage.cache_write_tokens;
  return attributes;
}
