/**
 * Every vendor acceptance rule the fake provider knows, in one list: the rules written as data
 * (chat-rules.ts, anthropic-rules.ts) and the earlier ones (vendor-rules.ts, pairing-rules.ts).
 * `bookRejection` answers the first refusal of the data rules; `vendorRejection` in
 * vendor-rules.ts consults the earlier ones first, then this book.
 *
 * Boundary rule: pure checks of a request body.
 */
import { anthropicRules } from "./anthropic-rules.js";
import { chatRules } from "./chat-rules.js";
import type { FakeProtocol, HttpErrorReply } from "./reply.js";
import type { Body, VendorRule } from "./vendor-rule.js";

/** The rules written as data. */
export const ruleBook: readonly VendorRule[] = [...chatRules, ...anthropicRules];

/** The first refusal of a data rule binding (`protocol`, `model`), or undefined. */
export function bookRejection(protocol: FakeProtocol, body: Body, model: string): HttpErrorReply | undefined {
  for (const rule of ruleBook) {
    if (rule.protocol !== protocol || !rule.applies(model)) continue;
    const refusal = rule.check(body);
    if (refusal !== undefined) return refusal;
  }
  return undefined;
}
