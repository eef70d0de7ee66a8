/**
 * A parent session's cost with its `task` agents' (the snapshot's `cost_total_usd`: its own
 * cost plus its children's, null when a price is unknown), shown in its header beside its
 * tokens with agents. The stream does not carry it: it is looked up again each time the
 * page lists the session's agents again (a task started or ended, the phase changed, a poll)
 * and each time the session's own tokens change.
 */
import { useEffect, useState } from "react";
import type { SessionSnapshot } from "../../../src/api/session-snapshot.js";
import type { SessionList } from "../../../src/api/sessions.js";
import { call } from "../daemon-api.js";

/**
 * The session's cost with its agents, as of the last listing of `agents` or change of its own
 * `tokens` (null: no agents, or a price unknown).
 */
export function useCostWithAgents(
  sessionId: string,
  agents: SessionList["items"],
  tokens: number,
): number | null {
  const [cost, setCost] = useState<number | null>(null);
  useEffect(() => {
    void tokens;
    if (agents.length === 0) {
      setCost(null);
      return;
    }
    let current = true;
    call<SessionSnapshot>("GET", `/sessions/${encodeURIComponent(sessionId)}?tail=0`).then(
      (snapshot) => current && setCost(snapshot.cost_total_usd),
      () => current && setCost(null),
    );
    return () => {
      current = false;
    };
  }, [sessionId, agents, tokens]);
  return cost;
}

/** `$0.0123 with agents` (cents once it reaches a dollar); nothing when the cost is not known. */
export function CostWithAgents({ cost }: { cost: number | null }) {
  if (cost === null) return null;
  return <span data-testid="cost-total">${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)} with agents</span>;
}
