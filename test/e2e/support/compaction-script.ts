/**
 * A fake model for compaction tests, in each of the four protocols: it answers summary
 * requests (recognised by the compaction instruction) with a summary, a prompt asking for
 * tools with reasoning and two parallel `read_file` calls (signed as each vendor signs them),
 * the tool results with a short text, and anything else with reasoning and text. Usage is the
 * fake's own count of the request, so the daemon's accounting sees realistic numbers.
 *
 * Boundary rule: test support; it knows the daemon only through the requests it receives.
 */
import { promptTokensOf } from "../../support/fake-provider/context-overflow.js";
import type { FakeProtocol, Reply } from "../../support/fake-provider/reply.js";
import { reasoning, stream, text, textPart, toolCallPart } from "../../support/fake-provider/reply.js";
import type { FakeProvider, RecordedRequest } from "../../support/fake-provider/server.js";
import type { ProviderProfileConfig } from "./daemon-harness.js";

/** The words every summary request's instruction starts with. */
const summaryMarker = "You are compacting the history";

/** The profile of each protocol's model in these tests (models with each vendor's reasoning rules). */
export function compactionProfile(
  protocol: FakeProtocol,
  provider: FakeProvider,
  extra: Partial<ProviderProfileConfig> = {},
): ProviderProfileConfig {
  const base = { apiKey: "k", ...extra };
  switch (protocol) {
    case "chat_completions":
      return { protocol, baseUrl: provider.baseUrlWith("v1"), model: "deepseek-reasoner", ...base };
    case "responses":
      return { protocol, baseUrl: provider.baseUrlWith("v1"), model: "gpt-5-mini", ...base };
    case "anthropic":
      return {
        protocol,
        baseUrl: provider.baseUrl,
        model: "claude-sonnet-4-5",
        thinkingBudget: 1024,
        maxOutputTokens: 2048,
        ...base,
      };
    case "gemini":
      return { protocol, baseUrl: provider.baseUrl, model: "gemini-3-pro-preview", ...base };
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}

/** Whether the request is a compaction's summary request. */
export function isSummaryRequest(request: RecordedRequest): boolean {
  return request.rawBody.includes(summaryMarker);
}

function lastOf(value: unknown): Record<string, unknown> | undefined {
  return Array.isArray(value) ? (value[value.length - 1] as Record<string, unknown> | undefined) : undefined;
}

/** Whether the request's conversation ends with tool results (the model should answer them). */
export function endsWithToolResults(protocol: FakeProtocol, body: Record<string, unknown>): boolean {
  switch (protocol) {
    case "chat_completions":
      return lastOf(body.messages)?.role === "tool";
    case "responses":
      return lastOf(body.input)?.type === "function_call_output";
    case "anthropic": {
      const content = lastOf(body.messages)?.content;
      return (
        Array.isArray(content) && content.some((block) => (block as { type?: string }).type === "tool_result")
      );
    }
    case "gemini": {
      const parts = lastOf(body.contents)?.parts;
      return Array.isArray(parts) && parts.some((part) => "functionResponse" in (part as object));
    }
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}

/**
 * A prompt the script answers with a tool round (`tools`), with text (`chat`), or with
 * `loopRounds` tool rounds in a row before its text (`loop`).
 */
export function scriptPrompt(kind: "tools" | "chat" | "loop", n: number, padding = 0): string {
  return `prompt:${kind}:${n} ${"lorem ipsum ".repeat(padding)}`.trim();
}

/** Tool rounds a `loop` prompt gets. */
const loopRounds = 6;

/** The script: summaries, a tool round for a `prompt:tools` prompt, text otherwise. */
export function compactionScript(protocol: FakeProtocol): (request: RecordedRequest) => Reply {
  let n = 0;
  return (request) => {
    n += 1;
    const usage = { input: promptTokensOf(request.rawBody), output: 20 };
    if (isSummaryRequest(request))
      return text(`Summary ${n}: the user asked to read files; all went well.`, { usage });
    const body = (request.body ?? {}) as Record<string, unknown>;
    const thought = { signature: `sig-${n}`, encryptedContent: `enc-${n}`, id: `rs_${n}` };
    const loop = request.rawBody.lastIndexOf("prompt:loop");
    if (loop >= 0 && request.rawBody.lastIndexOf("prompt:") === loop) {
      const rounds = request.rawBody.slice(loop).split("notes.txt").length - 1;
      if (rounds / 2 < loopRounds) {
        const calls = [0, 1].map((k) =>
          toolCallPart({
            name: "read_file",
            args: { path: "notes.txt" },
            ...(protocol === "gemini" && k === 0 ? { signature: `gcall-${n}` } : {}),
          }),
        );
        return reasoning(`looping ${n}`, stream(calls, { usage }), thought);
      }
    }
    if (endsWithToolResults(protocol, body)) {
      return reasoning(
        `checking the results ${n}`,
        stream([textPart(`done ${n}`, protocol === "gemini" ? { signature: `gsig-${n}` } : {})], { usage }),
        thought,
      );
    }
    const last = request.rawBody.lastIndexOf("prompt:");
    if (last >= 0 && request.rawBody.startsWith("prompt:tools", last)) {
      const calls = [0, 1].map((k) =>
        toolCallPart({
          name: "read_file",
          args: { path: "notes.txt" },
          ...(protocol === "gemini" && k === 0 ? { signature: `gcall-${n}` } : {}),
        }),
      );
      return reasoning(`planning ${n}`, stream(calls, { usage }), thought);
    }
    return reasoning(`thinking ${n}`, stream([textPart(`answer ${n}`)], { usage }), thought);
  };
}
