/**
 * An interrupt this node makes of a session another node owns (a `task` call's child, when its
 * parent's call is stopped): sent to the owner as a client's interrupt would be relayed to it,
 * `POST /sessions/{id}/interrupt` at the owner's node URL with the cluster's shared token and
 * `x-skein-forwarded-by`, so the owner answers it itself and records it like any interrupt
 * (durably: a turn whose interrupt was acknowledged ends interrupted even if the owner dies).
 *
 * Boundary rule: one request, no retry. A session with no live owner elsewhere is not this
 * file's: the caller's registry claims it and interrupts it here.
 */
import type { InterruptBody } from "../../api/inputs.js";
import type { ClusterNode } from "./cluster-node.js";
import { forwardedHeader } from "./request-forwarding.js";

/** How long the owner gets to answer. */
const ownerAnswerMs = 10_000;

/** Why an interrupt could not be delivered to the owner. */
class OwnerInterruptError extends Error {
  constructor(
    readonly sessionId: string,
    readonly owner: string,
    reason: string,
  ) {
    super(`could not interrupt session ${sessionId} on its owner node ${owner}: ${reason}`);
    this.name = "OwnerInterruptError";
  }
}

/**
 * Interrupt `sessionId` on the node that owns it: true once the owner accepted it, false when no
 * other live node owns it (interrupt it here); throws OwnerInterruptError when the owner refused
 * or could not be reached.
 */
export async function interruptOnOwner(
  node: ClusterNode,
  token: string,
  sessionId: string,
  body: InterruptBody,
): Promise<boolean> {
  const lease = await node.leaseOf(sessionId);
  if (lease === null || !lease.live || lease.node_id === node.nodeId || lease.url === null) return false;
  const target = new URL(`/sessions/${encodeURIComponent(sessionId)}/interrupt`, lease.url);
  let status: number;
  try {
    const response = await fetch(target, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        [forwardedHeader]: node.nodeId,
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ownerAnswerMs),
    });
    status = response.status;
    await response.body?.cancel();
  } catch (error) {
    throw new OwnerInterruptError(sessionId, lease.node_id, (error as Error).message);
  }
  if (status !== 200) throw new OwnerInterruptError(sessionId, lease.node_id, `it answered ${status}`);
  return true;
}
