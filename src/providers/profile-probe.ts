/**
 * One tiny streamed request to a provider ("Reply with the single word: OK"), to tell whether a
 * profile works: its URL, its key, its model. `skein config test` runs it through the daemon, so
 * the key comes from the daemon's environment.
 *
 * Boundary rule: never throws for the provider's failures (an `LlmClientError`, an error event,
 * the timeout); each is a `ProbeOutcome`, anything else is a bug and propagates. One attempt, no retries, bounded by `timeoutMs`.
 */
import { LlmClientError } from "../model/llm-client.js";
import { createLlmClient } from "./create-llm-client.js";
import type { ProviderProfile } from "./provider-profile.js";

/** How a probe ended. */
export type ProbeOutcome =
  | { ok: true; text: string; inputTokens: number | null; outputTokens: number | null }
  | { ok: false; kind: string; status: number | null; message: string };

/** What a probe needs besides the profile. */
export interface ProbeOptions {
  /** Where `apiKeyEnv` is looked up. */
  env?: Readonly<Record<string, string | undefined>>;
  timeoutMs: number;
}

const probePrompt = "Reply with the single word: OK";

/** Send the probe request for `profile` and report how it ended. */
export async function probeProfile(profile: ProviderProfile, options: ProbeOptions): Promise<ProbeOutcome> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error("timeout")), options.timeoutMs);
  let text = "";
  let inputTokens: number | null = null;
  let outputTokens: number | null = null;
  try {
    const client = createLlmClient(profile, {
      ...(options.env === undefined ? {} : { env: options.env }),
      retry: { maxAttempts: 1 },
      idleTimeoutMs: options.timeoutMs,
    });
    const request = {
      items: [
        {
          type: "message" as const,
          role: "user" as const,
          content: [{ type: "text" as const, text: probePrompt }],
        },
      ],
      tools: [],
      config: { max_tokens: 64 },
    };
    for await (const event of client.stream(request, abort.signal)) {
      if (event.type === "block_delta" && event.delta.type === "text") text += event.delta.text;
      if (event.type === "usage") {
        inputTokens = event.usage.input_tokens ?? 0;
        outputTokens = event.usage.output_tokens ?? 0;
      }
      if (event.type === "error") return { ok: false, kind: "api", status: null, message: event.message };
    }
    return { ok: true, text: text.trim(), inputTokens, outputTokens };
  } catch (error) {
    if (abort.signal.aborted) {
      return {
        ok: false,
        kind: "timeout",
        status: null,
        message: `no answer within ${options.timeoutMs} ms`,
      };
    }
    if (error instanceof LlmClientError) {
      return { ok: false, kind: error.kind, status: error.status ?? null, message: error.message };
    }
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
