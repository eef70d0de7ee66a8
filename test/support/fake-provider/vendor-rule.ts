/**
 * One vendor acceptance rule as data: which protocol and models it binds, where it comes from
 * (the vendor's documentation or the text of its error), and the check, which answers the
 * vendor's own refusal for a body that breaks it. The rule book (`rule-book.ts`) lists them; the
 * fake provider answers with the first refusal, and the property tests use the book as their
 * oracle.
 *
 * Boundary rule: test support only; types and the small helpers every rule shares.
 */
import type { FakeProtocol, HttpErrorReply } from "./reply.js";

export type Body = Record<string, unknown>;

/**
 * What the fake issued earlier that a vendor checks a body against: the Responses item ids,
 * each with the `rs_` id of the reasoning item it came after, and the Anthropic thinking
 * signatures, each with the text it signs.
 */
interface IssuedPayloads {
  pairs: ReadonlyMap<string, string>;
  signatures: ReadonlyMap<string, string>;
}

export interface VendorRule {
  /** A short stable name ("anthropic.non-whitespace-text"). */
  id: string;
  protocol: FakeProtocol;
  /** Where the rule comes from: the vendor's documentation or the refusal's own text. */
  source: string;
  /** Whether the rule binds this model (the request's model name). */
  applies(model: string): boolean;
  /** The vendor's refusal of `body` (given what the fake issued), or undefined when it passes. */
  check(body: Body, issued: IssuedPayloads): HttpErrorReply | undefined;
}

/** Binds every model. */
export const anyModel = (): boolean => true;

export function isObject(value: unknown): value is Body {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function objects(value: unknown): Body[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

export function openAiError(
  message: string,
  param: string | null,
  code: string | null = null,
  status = 400,
): HttpErrorReply {
  return {
    kind: "http_error",
    status,
    body: JSON.stringify({ error: { message, type: "invalid_request_error", param, code } }),
  };
}

/** Binds the models whose name matches `pattern`. */
export function modelsLike(pattern: RegExp): (model: string) => boolean {
  return (model) => pattern.test(model);
}

export function anthropicError(message: string): HttpErrorReply {
  return {
    kind: "http_error",
    status: 400,
    body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }),
  };
}

export function geminiError(message: string): HttpErrorReply {
  return {
    kind: "http_error",
    status: 400,
    body: JSON.stringify({ error: { code: 400, message, status: "INVALID_ARGUMENT" } }),
  };
}

/** A pydantic validator's 422 (Mistral's API), listing every field it refused. */
export function extraForbidden(locations: readonly (string | number)[][]): HttpErrorReply {
  const detail = locations.map((loc) => ({
    type: "extra_forbidden",
    loc: ["body", ...loc],
    msg: "Extra inputs are not permitted",
  }));
  return {
    kind: "http_error",
    status: 422,
    body: JSON.stringify({
      object: "error",
      message: { detail },
      type: "invalid_request_error",
      param: null,
      code: null,
    }),
  };
}

/** The position just after the last user message that carries text: where the current turn starts. */
export function currentTurnStart(messages: readonly Body[], isUserText: (message: Body) => boolean): number {
  let start = 0;
  messages.forEach((message, position) => {
    if (isUserText(message)) start = position + 1;
  });
  return start;
}
