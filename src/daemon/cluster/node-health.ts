/** A cluster node's health as readiness probes and metrics read it. */

/** Why the node cannot take work (or null), the leases it holds, the sessions it took over since start. */
export interface NodeHealth {
  notReady: string | null;
  held: number;
  takeovers: number;
}

/** Why a node in `state` cannot take work at `now` (stopped, not registered, leases unrenewed for a lease), or null. */
export function notReadyReason(
  state: { stopped: boolean; lastRenewal: number; leaseMs: number },
  now: number,
): string | null {
  if (state.stopped) return "this node has stopped";
  if (state.lastRenewal === 0) return "this node is not registered yet";
  const age = now - state.lastRenewal;
  return age >= state.leaseMs ? `leases last renewed ${age} ms ago (a lease is ${state.leaseMs} ms)` : null;
}
