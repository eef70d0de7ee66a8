/**
 * A model's refusal (Anthropic `stop_reason: "refusal"`): the run ends with a client error of
 * code `refusal` whose message carries the provider's explanation, and nothing of the refused
 * answer is committed. The vendor's guidance is to leave the refused turn out of what is sent
 * next (a resent refusal gets the next request refused too); an owner that keeps a log does so
 * (the daemon excludes the turn from later requests, see docs/providers.md).
 *
 * Boundary rule: pure.
 */
import { LlmClientError } from "../model/llm-client.js";
import { WorkerError } from "./errors.js";
import type { CollectedResponse } from "./response-collector.js";

/** The code a refusal's client error carries. */
export const refusalCode = "refusal";

/** The run's error for a refused response. */
export function refusalError(provider: string, response: CollectedResponse): WorkerError {
  const explanation = response.refusal?.explanation;
  const category = response.refusal?.category;
  const detail = [category === undefined ? undefined : `category ${category}`, explanation]
    .filter((part) => part !== undefined)
    .join(": ");
  const message = `${provider}: the model refused to answer${detail.length > 0 ? ` (${detail})` : ""}`;
  return WorkerError.client(new LlmClientError("api", provider, message, { code: refusalCode }));
}
