import { describe, expect, it } from "vitest";
import { collectState, usageHistoryLimit } from "../../src/log/collect-state.js";
import { compactionSummaryItem } from "../../src/log/compaction-summary.js";
import type { LogEntry } from "../../src/log/entries.js";
import { buildChain, computeHash } from "../../src/log/entry-hash.js";
import { assistantMessage, systemMessage, toolCall, toolResult, userMessage } from "../../src/model/items.js";

const start = (overrides: Partial<Extract<LogEntry, { kind: "session_start" }>> = {}): LogEntry => ({
  kind: "session_start",
  ts: 1000,
  system_prompt: "You are helpful.",
  config: { max_tokens: 1024 },
  history: [],
  ...overrides,
});

const fullTurn: LogEntry[] = [
  start(),
  { kind: "user_input", ts: 1001, item: userMessage("Hi") },
  { kind: "assistant_items", ts: 1002, items: [assistantMessage("Hello!")] },
  { kind: "turn_end", ts: 1003, turn_count: 1 },
  { kind: "run_outcome", ts: 1004, outcome: { type: "finished" }, interrupted: false },
];

describe("collectState", () => {
  it("gives the defaults for an empty log", () => {
    expect(collectState([])).toEqual({
      system_prompt: null,
      config: {},
      history: [],
      request_count: 0,
      locked_prefix_len: 0,
      last_run_interrupted: false,
      head_hash: null,
      usage_history: [],
      approval_policy: null,
      approval_mode: "ask",
      remembered_rules: [],
      pending_approvals: [],
      approval_decisions: {},
      history_positions: [],
      next_position: 0,
      last_compaction: null,
      todos: [],
      budget: null,
      last_request_usage: null,
    });
  });

  it("takes the plan from the latest well-formed todo_write call, and keeps it through a compaction", () => {
    const plan = (todos: unknown) => JSON.stringify({ todos });
    const entries: LogEntry[] = [
      start(),
      { kind: "user_input", ts: 1, item: userMessage("Plan it") },
      {
        kind: "assistant_items",
        ts: 2,
        items: [toolCall("c1", "todo_write", plan([{ content: "read", status: "in_progress" }]))],
      },
      {
        kind: "assistant_items",
        ts: 3,
        items: [
          toolCall(
            "c2",
            "todo_write",
            plan([
              { content: "read", status: "completed" },
              { content: "write", status: "pending" },
            ]),
          ),
          toolCall("c3", "todo_write", plan([{ content: "bad", status: "done" }])),
          toolCall("c4", "other_tool", plan([])),
        ],
      },
      {
        kind: "compaction",
        ts: 4,
        summary: "planned",
        first_kept_position: 4,
        before_tokens: 9,
        after_tokens: 3,
      },
    ];
    expect(collectState(buildChain(null, entries.slice(0, 3))).todos).toEqual([
      { content: "read", status: "in_progress" },
    ]);
    expect(collectState(buildChain(null, entries)).todos).toEqual([
      { content: "read", status: "completed" },
      { content: "write", status: "pending" },
    ]);
  });

  it("takes prompt, config and history from session_start", () => {
    const chain = buildChain(null, [start({ history: [userMessage("a"), assistantMessage("b")] })]);
    const state = collectState(chain);
    expect(state.system_prompt).toBe("You are helpful.");
    expect(state.config).toEqual({ max_tokens: 1024 });
    expect(state.history).toHaveLength(2);
    expect(state.head_hash).toBe(chain[0]!.hash);
  });

  it("replays a full turn", () => {
    const chain = buildChain(null, fullTurn);
    const state = collectState(chain);
    expect(state.history).toEqual([userMessage("Hi"), assistantMessage("Hello!")]);
    expect(state.request_count).toBe(1);
    expect(state.last_run_interrupted).toBe(false);
    expect(state.head_hash).toBe(chain[4]!.hash);
  });

  it("replays tool calls and results in order", () => {
    const state = collectState(
      buildChain(null, [
        start(),
        { kind: "user_input", ts: 1, item: userMessage("Weather?") },
        { kind: "assistant_items", ts: 2, items: [toolCall("call_1", "get_weather", '{"city":"Tokyo"}')] },
        { kind: "tool_results", ts: 3, items: [toolResult("call_1", "Sunny, 25C")] },
        { kind: "assistant_items", ts: 4, items: [assistantMessage("It's sunny in Tokyo!")] },
      ]),
    );
    expect(state.history).toHaveLength(4);
    expect(state.history[1]!.type).toBe("tool_call");
    expect(state.history[2]!.type).toBe("tool_result");
  });

  it("sets and clears the locked prefix", () => {
    const chain = buildChain(null, [
      start(),
      { kind: "locked", ts: 1, locked_prefix_len: 2 },
      { kind: "cache_unlocked", ts: 2 },
    ]);
    expect(collectState(chain.slice(0, 2)).locked_prefix_len).toBe(2);
    expect(collectState(chain).locked_prefix_len).toBe(0);
  });

  it("takes the latest config_changed", () => {
    const state = collectState(
      buildChain(null, [start(), { kind: "config_changed", ts: 1, config: { temperature: 0.7 } }]),
    );
    expect(state.config).toEqual({ temperature: 0.7 });
  });

  it("lets a later session_start replace the history instead of appending to it", () => {
    const state = collectState(
      buildChain(null, [
        start({ history: [userMessage("old")] }),
        { kind: "user_input", ts: 1, item: userMessage("more") },
        start({ system_prompt: null, history: [systemMessage("summary")] }),
      ]),
    );
    expect(state.history).toEqual([systemMessage("summary")]);
    expect(state.system_prompt).toBeNull();
  });

  it("pushes notes and hook-injected items and ignores continuations", () => {
    const state = collectState(
      buildChain(null, [
        start(),
        { kind: "hook_injected_items", ts: 1, items: [systemMessage("injected")] },
        { kind: "note", ts: 2, origin: "daemon", item: systemMessage("the daemon restarted") },
        { kind: "continuation", ts: 3 },
      ]),
    );
    expect(state.history).toEqual([systemMessage("injected"), systemMessage("the daemon restarted")]);
  });

  it("marks the last run interrupted from its run_outcome", () => {
    const state = collectState(
      buildChain(null, [
        start(),
        { kind: "run_outcome", ts: 1, outcome: { type: "paused" }, interrupted: true },
      ]),
    );
    expect(state.last_run_interrupted).toBe(true);
  });

  it("appends llm_usage entries to the usage history without touching history", () => {
    const usage: LogEntry = {
      kind: "llm_usage",
      ts: 5,
      history_len: 2,
      input_total_tokens: 100,
      cache_read_tokens: 80,
      cache_write_tokens: 10,
      output_tokens: 20,
    };
    const state = collectState(buildChain(null, [...fullTurn, usage]));
    expect(state.usage_history).toEqual([
      {
        history_len: 2,
        input_total_tokens: 100,
        cache_read_tokens: 80,
        cache_write_tokens: 10,
        output_tokens: 20,
      },
    ]);
    expect(state.history).toHaveLength(2);
  });

  it("keeps the usage of only the latest requests, however many the log records", () => {
    const usage = (n: number): LogEntry => ({
      kind: "llm_usage",
      ts: n,
      history_len: n,
      input_total_tokens: n,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 1,
    });
    const entries = [...fullTurn];
    for (let n = 0; n < usageHistoryLimit + 10; n++) entries.push(usage(n));
    const kept = collectState(buildChain(null, entries)).usage_history;
    expect(kept).toHaveLength(usageHistoryLimit);
    expect(kept[0]!.history_len).toBe(10);
    expect(kept.at(-1)!.history_len).toBe(usageHistoryLimit + 9);
  });

  it("keeps the usage history empty without llm_usage entries", () => {
    expect(collectState(buildChain(null, fullTurn)).usage_history).toEqual([]);
  });

  it("round-trips an llm_usage entry through JSON with the same hash", () => {
    const usage: LogEntry = {
      kind: "llm_usage",
      ts: 5,
      history_len: 2,
      input_total_tokens: 100,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      output_tokens: 20,
    };
    const parsed = JSON.parse(JSON.stringify(usage)) as LogEntry;
    expect(parsed).toEqual(usage);
    expect(computeHash(null, parsed)).toBe(computeHash(null, usage));
  });

  it("does not let changes to the restored history reach the entries", () => {
    const chain = buildChain(null, [start({ history: [userMessage("a")] })]);
    collectState(chain).history.push(userMessage("b"));
    expect(collectState(chain).history).toHaveLength(1);
  });

  describe("approvals", () => {
    const rule = { source: "builtin" as const, tool: null, pattern: null, action: "ask" as const };
    const asked: LogEntry[] = [
      start(),
      { kind: "user_input", ts: 1, item: userMessage("Clean up") },
      {
        kind: "assistant_items",
        ts: 2,
        items: [
          toolCall("call_1", "run_command", '{"command":"rm -r build"}'),
          toolCall("call_2", "write_file", '{"path":"a","content":""}'),
        ],
        turn_id: "turn-1",
      },
      { kind: "approval_requested", ts: 2, call_id: "call_1", tool: "run_command", rule, turn_id: "turn-1" },
      { kind: "approval_requested", ts: 2, call_id: "call_2", tool: "write_file", rule, turn_id: "turn-1" },
    ];

    it("keeps a requested call pending until it is answered", () => {
      const state = collectState(buildChain(null, asked));
      expect(state.pending_approvals).toEqual([
        { call_id: "call_1", tool: "run_command", rule, requested_at: 2, turn_id: "turn-1" },
        { call_id: "call_2", tool: "write_file", rule, requested_at: 2, turn_id: "turn-1" },
      ]);
      expect(state.history).toHaveLength(3);
    });

    it("records an answer, its remembered rule, and takes the call off the pending list", () => {
      const remember = { tool: "write_file", action: "allow" as const };
      const state = collectState(
        buildChain(null, [
          ...asked,
          { kind: "approval_resolved", ts: 3, call_id: "call_2", decision: "allow", by: "client", remember },
          {
            kind: "approval_resolved",
            ts: 4,
            call_id: "call_1",
            decision: "deny",
            by: "client",
            client_id: "cli",
            message: "not now",
          },
        ]),
      );
      expect(state.pending_approvals).toEqual([]);
      expect(state.remembered_rules).toEqual([remember]);
      expect(state.approval_decisions.call_1).toEqual({
        call_id: "call_1",
        decision: "deny",
        by: "client",
        client_id: "cli",
        message: "not now",
        remember: null,
        resolved_at: 4,
        answered_by: null,
        answered_from: null,
      });
      expect(state.approval_decisions.call_2?.remember).toEqual(remember);
    });

    it("drops a pending request once its call has a result", () => {
      const state = collectState(
        buildChain(null, [
          ...asked,
          { kind: "tool_results", ts: 3, items: [toolResult("call_1", "not executed", true)] },
        ]),
      );
      expect(state.pending_approvals.map((pending) => pending.call_id)).toEqual(["call_2"]);
    });

    it("forgets the answer to a call id when a new call uses the same id", () => {
      const state = collectState(
        buildChain(null, [
          ...asked,
          { kind: "approval_resolved", ts: 3, call_id: "call_1", decision: "allow", by: "client" },
          { kind: "tool_results", ts: 4, items: [toolResult("call_1", "ok"), toolResult("call_2", "ok")] },
          {
            kind: "assistant_items",
            ts: 5,
            items: [toolCall("call_1", "run_command", '{"command":"rm -r /"}')],
          },
        ]),
      );
      expect(state.approval_decisions.call_1).toBeUndefined();
      expect(state.pending_approvals).toEqual([]);
    });

    it("takes the latest session policy, null included", () => {
      const policy = { default: "deny" as const, rules: [{ tool: "read_file", action: "allow" as const }] };
      const entries: LogEntry[] = [start(), { kind: "approval_policy_changed", ts: 1, policy }];
      expect(collectState(buildChain(null, entries)).approval_policy).toEqual(policy);
      entries.push({ kind: "approval_policy_changed", ts: 2, policy: null });
      expect(collectState(buildChain(null, entries)).approval_policy).toBeNull();
    });

    it("keeps answers by call id even for ids that name Object's properties", () => {
      const state = collectState(
        buildChain(null, [
          start(),
          { kind: "approval_requested", ts: 1, call_id: "__proto__", tool: "t", rule },
          { kind: "approval_resolved", ts: 2, call_id: "__proto__", decision: "allow", by: "client" },
        ]),
      );
      expect(Object.hasOwn(state.approval_decisions, "__proto__")).toBe(true);
      expect(Object.hasOwn(state.approval_decisions, "toString")).toBe(false);
    });
  });

  it("replays a compaction as its summary followed by the entries from the first kept position on", () => {
    const log: LogEntry[] = [
      ...fullTurn,
      { kind: "user_input", ts: 1005, item: userMessage("Again") },
      { kind: "assistant_items", ts: 1006, items: [toolCall("c1", "read_file", "{}")] },
      { kind: "tool_results", ts: 1007, items: [toolResult("c1", "text")] },
      { kind: "locked", ts: 1008, locked_prefix_len: 3 },
      {
        kind: "compaction",
        ts: 1009,
        summary: "We said hello.",
        first_kept_position: 5,
        before_tokens: 90,
        after_tokens: 40,
      },
      { kind: "user_input", ts: 1010, item: userMessage("Next") },
    ];
    const state = collectState(buildChain(null, log));
    expect(state.history).toEqual([
      compactionSummaryItem("We said hello."),
      userMessage("Again"),
      toolCall("c1", "read_file", "{}"),
      toolResult("c1", "text"),
      userMessage("Next"),
    ]);
    expect(state.history_positions).toEqual([9, 5, 6, 7, 10]);
    expect(state.locked_prefix_len).toBe(0);
    expect(state.last_compaction).toEqual({
      position: 9,
      first_kept_position: 5,
      before_tokens: 90,
      after_tokens: 40,
    });
    // A compaction that keeps nothing: the summary alone.
    const bare = collectState(
      buildChain(null, [
        ...fullTurn,
        {
          kind: "compaction",
          ts: 1,
          summary: "s",
          first_kept_position: 5,
          before_tokens: 9,
          after_tokens: 3,
        },
      ]),
    );
    expect(bare.history).toEqual([compactionSummaryItem("s")]);
  });
});
