/**
 * Every vendor acceptance rule the fake provider knows, in one list of data (each rule with
 * its id, the protocol and models it binds, and where it comes from): tool declarations
 * (tool-rules.ts), the pairing of calls and results (pairing-rules.ts), OpenAI's own
 * (openai-rules.ts), the other Chat Completions servers' (chat-rules.ts), Anthropic's
 * (anthropic-rules.ts) and Gemini's (gemini-rules.ts). The fake provider answers a request
 * with the first refusal; the builders' property tests use the book as their oracle. Model
 * rules are keyed by model name, so requests for neutral names ("test-model") pass them.
 *
 * Boundary rule: pure checks of a request body (plus what the fake issued).
 */
import { anthropicRules } from "./anthropic-rules.js";
import { chatRules } from "./chat-rules.js";
import { geminiRules } from "./gemini-rules.js";
import { openAiRules } from "./openai-rules.js";
import { pairingRules } from "./pairing-rules.js";
import type { FakeProtocol, HttpErrorReply } from "./reply.js";
import { toolRules } from "./tool-rules.js";
import { isObject, type VendorRule } from "./vendor-rule.js";

/** Every rule, in the order they are checked. */
export const ruleBook: readonly VendorRule[] = [
  ...toolRules,
  ...pairingRules,
  ...openAiRules,
  ...chatRules,
  ...anthropicRules,
  ...geminiRules,
];

/**
 * The vendor's refusal of a request to `model` (the first rule binding `protocol` and `model`
 * that `body` breaks), or undefined when the request passes. `pairs` maps each Responses item
 * id to the reasoning item it came after; `signatures` each Anthropic signature to its text.
 */
export function vendorRejection(
  protocol: FakeProtocol,
  body: unknown,
  model: string,
  pairs: ReadonlyMap<string, string>,
  signatures: ReadonlyMap<string, string> = new Map(),
): HttpErrorReply | undefined {
  if (!isObject(body)) return undefined;
  const issued = { pairs, signatures };
  for (const rule of ruleBook) {
    if (rule.protocol !== protocol || !rule.applies(model)) continue;
    const refusal = rule.check(body, issued);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}
