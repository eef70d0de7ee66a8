/**
 * A whole session snapshot as the daemon answers it, for tests of what reads one (renderers,
 * the web reducer, the snapshot's own budget): an idle session with an empty history, every
 * field present, changed where a test needs it.
 */
import type { SessionSnapshot } from "../../src/api/session-snapshot.js";

/** An idle session `s` in `/w` on profile `p`, model `m`, with `changes` laid over it. */
export function sessionSnapshot(changes: Partial<SessionSnapshot> = {}): SessionSnapshot {
  return {
    id: "s",
    name: null,
    workspace: "/w",
    parent_id: null,
    parent_call_id: null,
    agent: null,
    created_at: "2026-01-01T00:00:00.000Z",
    activity_at: "2026-01-01T00:00:00.000Z",
    provider_profile: "p",
    model: "m",
    status: { phase: "idle", run_id: null, interrupt_requested: false, blocking_reason: null },
    cursor: { generation: "g", sequence: 0 },
    preview: { text: "", transcript_count: 0, truncated: false },
    input_order: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, total_tokens: 0 },
    creation: { kind: "new", submitted: { kind: "new", workspace: "/w" } },
    pending_inputs: [],
    pending_approvals: [],
    approval_policy: null,
    approval_mode: "ask",
    history: { items: [], older: null, newer: null, high_water: 0, byte_limited: false },
    settings: { provider_profile: "p", model: "m", request_config: {}, effective: null },
    context: null,
    todos: [],
    budget: null,
    usage_total: { prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, total_tokens: 0 },
    cost_total_usd: null,
    ...changes,
  };
}
