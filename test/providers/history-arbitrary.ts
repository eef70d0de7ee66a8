/**
 * Random histories of the kind a session log can hold, for the builders' property tests: turns
 * of user text (empty, whitespace, unicode edge cases), answers whose reasoning, text and calls
 * came from this model, another model of the same provider or another provider (a switch mid
 * session) or from a log written before origins were recorded, calls cut off at the output
 * limit or with arguments that are no JSON object, results that are empty, whitespace or
 * errors, calls left without a result (an interrupted turn), results whose call is gone (an
 * exclusion or a compaction), reused call ids, compaction summaries. Alongside each history it
 * gives what a real vendor would have issued for it: the Responses item ids each paired with
 * its reasoning item, and the Anthropic signatures with the thinking text each signs.
 *
 * Boundary rule: test support; fast-check arbitraries and plain data.
 */
import fc from "fast-check";
import type { Item, ItemOrigin } from "../../src/model/items.js";

/** A generated history and what the vendor issued in it. */
export interface GeneratedHistory {
  items: Item[];
  /** Responses `fc_`/`msg_` item id → the `rs_` id of the reasoning item it came after. */
  pairs: Map<string, string>;
  /** Anthropic signature → the thinking text it signs. */
  signatures: Map<string, string>;
}

/** Text that stresses builders: empty, whitespace only, unicode edge cases, ordinary words. */
const text = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\n\t ",
    "ok",
    "Look it up.",
    "é\u0301",
    "🧶 yarn",
    "\u200b",
    "a\u0000b",
    "\ud83d",
  ),
  fc.string({ maxLength: 12 }),
);

/** Tool call arguments as a model may leave them. */
const callArguments = fc.oneof(
  fc.constantFrom(
    '{"word":"skein"}',
    "{}",
    '{"path": "a.txt", "content": "cut',
    "",
    "[1,2]",
    "null",
    '"x"',
    "{",
  ),
  fc
    .dictionary(fc.constantFrom("a", "b", "path"), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()))
    .map((value) => JSON.stringify(value)),
);

/** Where an answer came from, relative to the target `origin`. */
type Source = "same" | "other-model" | "other-provider" | "untagged";

interface AnswerSpec {
  source: Source;
  reasoning: {
    text: string;
    summary: boolean;
    signed: boolean;
    encrypted: boolean;
    redacted: boolean;
    details: boolean;
  }[];
  texts: { text: string; signed: boolean; phase: boolean }[];
  calls: { name: string; args: string; signed: boolean; reuseId: boolean }[];
  results: ("ok" | "empty" | "whitespace" | "error" | "empty-error" | "missing")[];
}

const answer: fc.Arbitrary<AnswerSpec> = fc.record({
  source: fc.constantFrom<Source>("same", "same", "other-model", "other-provider", "untagged"),
  reasoning: fc.array(
    fc.record({
      text,
      summary: fc.boolean(),
      signed: fc.boolean(),
      encrypted: fc.boolean(),
      redacted: fc.boolean(),
      details: fc.boolean(),
    }),
    { maxLength: 2 },
  ),
  texts: fc.array(fc.record({ text, signed: fc.boolean(), phase: fc.boolean() }), { maxLength: 2 }),
  calls: fc.array(
    fc.record({
      name: fc.constantFrom("lookup", "write_file"),
      args: callArguments,
      signed: fc.boolean(),
      reuseId: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  results: fc.array(
    fc.constantFrom("ok", "empty", "whitespace", "error", "empty-error", "missing") as fc.Arbitrary<
      AnswerSpec["results"][number]
    >,
    { minLength: 3, maxLength: 3 },
  ),
});

type Step =
  | { kind: "user"; text: string }
  | { kind: "answer"; spec: AnswerSpec }
  | { kind: "summary" }
  | { kind: "orphan-result" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: text.map((t) => ({ kind: "user" as const, text: t })) },
  { weight: 6, arbitrary: answer.map((spec) => ({ kind: "answer" as const, spec })) },
  { weight: 1, arbitrary: fc.constant({ kind: "summary" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "orphan-result" as const }) },
);

/** Histories for a target `origin` (the client's provider label and model). */
export function historyArbitrary(origin: ItemOrigin): fc.Arbitrary<GeneratedHistory> {
  return fc
    .tuple(text, fc.array(step, { maxLength: 8 }), fc.boolean())
    .map(([first, steps, endsWithPendingCalls]) => build(origin, first, steps, endsWithPendingCalls));
}

function originOf(source: Source, target: ItemOrigin): ItemOrigin | undefined {
  switch (source) {
    case "same":
      return { ...target };
    case "other-model":
      return { provider: target.provider, model: `${target.model}-previous` };
    case "other-provider":
      return { provider: target.provider === "anthropic" ? "gemini" : "anthropic", model: "elsewhere-1" };
    case "untagged":
      return undefined;
  }
}

function build(
  target: ItemOrigin,
  first: string,
  steps: readonly Step[],
  pending: boolean,
): GeneratedHistory {
  const items: Item[] = [{ type: "message", role: "user", content: [{ type: "text", text: first }] }];
  const pairs = new Map<string, string>();
  const signatures = new Map<string, string>();
  let counter = 0;
  const next = (prefix: string) => `${prefix}_${(++counter).toString(36)}`;
  let lastCallId = "call_0";
  steps.forEach((entry, index) => {
    const last = index === steps.length - 1;
    switch (entry.kind) {
      case "user":
        items.push({ type: "message", role: "user", content: [{ type: "text", text: entry.text }] });
        return;
      case "summary":
        items.push({
          type: "message",
          role: "user",
          content: [{ type: "text", text: "Summary of the earlier conversation." }],
        });
        return;
      case "orphan-result":
        items.push({ type: "tool_result", call_id: next("gone"), output: "left behind" });
        return;
      case "answer": {
        const { spec } = entry;
        const origin = originOf(spec.source, target);
        let reasoningId: string | undefined;
        for (const r of spec.reasoning) {
          const item: Item = { type: "reasoning", text: r.redacted ? "" : r.text };
          if (origin !== undefined) item.origin = origin;
          reasoningId = next("rs");
          item.id = reasoningId;
          if (r.summary) item.summary = [r.text];
          if (r.redacted) {
            item.redacted = true;
            item.encrypted_content = next("redacted");
          } else if (r.encrypted) item.encrypted_content = next("enc");
          if (r.signed) {
            const signature = next("sig");
            item.signature = signature;
            signatures.set(signature, item.text);
          }
          if (r.details) item.details = [{ type: "reasoning.encrypted", data: next("data"), format: "test" }];
          items.push(item);
        }
        for (const t of spec.texts) {
          const id = next("msg");
          if (reasoningId !== undefined) pairs.set(id, reasoningId);
          const message: Item = {
            type: "message",
            role: "assistant",
            content: [{ type: "text", text: t.text }],
            id,
          };
          if (t.phase) message.phase = "commentary";
          if (t.signed) {
            message.signature = next("tsig");
            if (origin !== undefined) message.origin = origin;
          }
          items.push(message);
        }
        const callIds: string[] = [];
        for (const c of spec.calls) {
          const callId = c.reuseId ? lastCallId : next("call");
          lastCallId = callId;
          const id = next("fc");
          if (reasoningId !== undefined) pairs.set(id, reasoningId);
          const call: Item = { type: "tool_call", call_id: callId, name: c.name, arguments: c.args, id };
          if (c.signed) {
            call.signature = next("csig");
            if (origin !== undefined) call.origin = origin;
          }
          items.push(call);
          callIds.push(callId);
        }
        // The last answer's calls may still wait for their tools.
        if (last && pending) return;
        callIds.forEach((callId, at) => {
          const kind = spec.results[at] ?? "ok";
          if (kind === "missing") return;
          const output = {
            ok: "result",
            empty: "",
            whitespace: "  \n",
            error: "it failed",
            "empty-error": "",
          }[kind];
          const result: Item = { type: "tool_result", call_id: callId, output };
          if (kind === "error" || kind === "empty-error") result.is_error = true;
          items.push(result);
        });
        return;
      }
    }
  });
  return { items, pairs, signatures };
}
