/** fast-check arbitraries for conversation items and log entries (shared by the log tests). */
import fc from "fast-check";
import type { EntryContext, LogEntry, Outcome } from "../../src/log/entries.js";
import type { ApprovalPolicy, ApprovalRule } from "../../src/model/approval-policy.js";
import type { ContentPart, Item } from "../../src/model/items.js";
import type { RequestConfig } from "../../src/model/request-config.js";

/** Text with any Unicode (astral characters, controls, quotes, backslashes included). */
const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.string({ unit: "grapheme", maxLength: 24 }),
  fc.constantFrom("", "\n", '"quoted"', "back\\slash", "\u2028\u2029", "😀", "\u0000\u001f", "é"),
);

const id = fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 12 });

const contentPart: fc.Arbitrary<ContentPart> = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: anyText }),
  fc.record({ type: fc.constant("refusal" as const), refusal: anyText }),
);

export const itemArbitrary: fc.Arbitrary<Item> = fc.oneof(
  fc.record(
    {
      type: fc.constant("message" as const),
      role: fc.constantFrom("user" as const, "assistant" as const, "system" as const),
      content: fc.array(contentPart, { maxLength: 3 }),
      id,
    },
    { requiredKeys: ["type", "role", "content"] },
  ),
  fc.record(
    {
      type: fc.constant("tool_call" as const),
      call_id: id,
      name: id,
      arguments: fc.json({ maxDepth: 2 }),
      id,
      signature: id,
    },
    { requiredKeys: ["type", "call_id", "name", "arguments"] },
  ),
  fc.record(
    { type: fc.constant("tool_result" as const), call_id: id, output: anyText, is_error: fc.constant(true) },
    { requiredKeys: ["type", "call_id", "output"] },
  ),
  fc.record(
    {
      type: fc.constant("reasoning" as const),
      text: anyText,
      summary: fc.array(anyText, { maxLength: 2 }),
      signature: id,
      encrypted_content: id,
      redacted: fc.boolean(),
      id,
    },
    { requiredKeys: ["type", "text"] },
  ),
);

const finiteDouble = fc.double({ noNaN: true, noDefaultInfinity: true });

const requestConfigArbitrary: fc.Arbitrary<RequestConfig> = fc.record(
  {
    max_tokens: fc.nat(),
    temperature: finiteDouble,
    top_p: finiteDouble,
    top_k: fc.nat(),
    stop_sequences: fc.array(anyText, { maxLength: 2 }),
    reasoning: fc.oneof(
      fc.record({ effort: fc.constantFrom("minimal" as const, "low" as const, "high" as const) }),
      fc.record({ budget_tokens: fc.nat() }),
    ),
  },
  { requiredKeys: [] },
);

const ts = fc.integer({ min: 0, max: 2 ** 48 });
const count = fc.nat({ max: 1_000_000 });
const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
const context: fc.Arbitrary<EntryContext> = fc.record({ turn_id: id, input_id: id }, { requiredKeys: [] });

const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.constantFrom<Outcome>(
    { type: "finished" },
    { type: "paused" },
    { type: "limit_reached" },
    { type: "yielded" },
  ),
  fc.record({ type: fc.constant("error" as const), message: anyText }),
);

/** A session_start entry (with or without a fork origin). */
export const sessionStartArbitrary: fc.Arbitrary<LogEntry> = fc.record(
  {
    kind: fc.constant("session_start" as const),
    ts,
    system_prompt: fc.option(anyText, { nil: null }),
    config: requestConfigArbitrary,
    history: fc.array(itemArbitrary, { maxLength: 3 }),
    forked_from: fc.record({ session_id: fc.uuid(), entry_hash: hex64 }),
  },
  { requiredKeys: ["kind", "ts", "system_prompt", "config", "history"] },
);

const approvalActionArbitrary = fc.constantFrom("allow" as const, "ask" as const, "deny" as const);

function approvalRuleArbitrary(): fc.Arbitrary<ApprovalRule> {
  return fc.record(
    { tool: id, pattern: anyText, action: approvalActionArbitrary },
    { requiredKeys: ["tool", "action"] },
  );
}

function approvalPolicyArbitrary(): fc.Arbitrary<ApprovalPolicy> {
  return fc.record(
    { default: approvalActionArbitrary, rules: fc.array(approvalRuleArbitrary(), { maxLength: 3 }) },
    { requiredKeys: [] },
  );
}

/** Any entry that may follow a session_start. */
export const laterEntryArbitrary: fc.Arbitrary<LogEntry> = fc.oneof(
  fc
    .tuple(ts, itemArbitrary, context)
    .map(([t, item, c]): LogEntry => ({ kind: "user_input", ts: t, item, ...c })),
  fc
    .tuple(
      fc.constantFrom("assistant_items" as const, "tool_results" as const, "hook_injected_items" as const),
      ts,
      fc.array(itemArbitrary, { maxLength: 4 }),
      context,
    )
    .map(([kind, t, items, c]): LogEntry => ({ kind, ts: t, items, ...c })),
  fc
    .tuple(ts, id, itemArbitrary)
    .map(([t, origin, item]): LogEntry => ({ kind: "note", ts: t, origin, item })),
  fc.tuple(ts, context).map(([t, c]): LogEntry => ({ kind: "continuation", ts: t, ...c })),
  fc.tuple(ts, count).map(([t, n]): LogEntry => ({ kind: "turn_end", ts: t, turn_count: n })),
  fc
    .tuple(ts, outcome, fc.boolean())
    .map(([t, o, i]): LogEntry => ({ kind: "run_outcome", ts: t, outcome: o, interrupted: i })),
  fc
    .tuple(ts, requestConfigArbitrary)
    .map(([t, config]): LogEntry => ({ kind: "config_changed", ts: t, config })),
  fc.tuple(ts, count).map(([t, n]): LogEntry => ({ kind: "locked", ts: t, locked_prefix_len: n })),
  ts.map((t): LogEntry => ({ kind: "cache_unlocked", ts: t })),
  fc.tuple(ts, count, count, count, count, count).map(
    ([t, h, i, r, w, o]): LogEntry => ({
      kind: "llm_usage",
      ts: t,
      history_len: h,
      input_total_tokens: i,
      cache_read_tokens: r,
      cache_write_tokens: w,
      output_tokens: o,
    }),
  ),
  fc
    .tuple(ts, fc.option(approvalPolicyArbitrary(), { nil: null }))
    .map(([t, policy]): LogEntry => ({ kind: "approval_policy_changed", ts: t, policy })),
  fc.tuple(ts, id, id, approvalActionArbitrary, context).map(
    ([t, callId, tool, action, c]): LogEntry => ({
      kind: "approval_requested",
      ts: t,
      call_id: callId,
      tool,
      rule: { source: "config", tool, pattern: null, action },
      ...c,
    }),
  ),
  fc
    .tuple(
      ts,
      id,
      fc.constantFrom("allow" as const, "deny" as const),
      fc.option(anyText, { nil: undefined }),
      fc.option(approvalRuleArbitrary(), { nil: undefined }),
    )
    .map(
      ([t, callId, decision, message, remember]): LogEntry => ({
        kind: "approval_resolved",
        ts: t,
        call_id: callId,
        decision,
        by: "client",
        ...(message === undefined ? {} : { message }),
        ...(remember === undefined ? {} : { remember }),
      }),
    ),
);

/** A plausible log: a session_start followed by other entries. */
export function logArbitrary(maxLater = 12): fc.Arbitrary<LogEntry[]> {
  return fc
    .tuple(sessionStartArbitrary, fc.array(laterEntryArbitrary, { maxLength: maxLater }))
    .map(([start, later]) => [start, ...later]);
}
