/**
 * A `task` call's relay of its child's approvals to the parent's stream: each request is told
 * once, each answer with the child's session id; a catch-up from the child's log tells only the
 * difference from what was relayed, and a log read that an event of the child overtook is read
 * again.
 */
import { describe, expect, it } from "vitest";
import { ApprovalRelay, type ChildApprovals } from "../../../src/daemon/task/approval-relay.js";
import { allowedAnswer, waitingCall } from "../../support/approval-records.js";

const request = (callId: string) => waitingCall(callId, { tool: "run_command", run_id: "r1" });
const answer = (callId: string) => allowedAnswer(callId, { client_id: "web" });

/** A relay of child `k` whose log reads `logs` in turn; `told` collects what it published. */
function relayOf(logs: ChildApprovals[], beforeRead: () => void = () => {}) {
  const told: Array<{ type: string; call_id: string; session_id?: string; run_id?: string | null }> = [];
  const relay = new ApprovalRelay(
    "k",
    (type, data) => told.push({ type, ...(data as { call_id: string; session_id?: string }) }),
    async () => {
      beforeRead();
      return logs.shift() ?? null;
    },
  );
  return { relay, told };
}

describe("a child's approvals relayed to its parent's stream", () => {
  it("tells each request once and each answer with the child's session id", () => {
    const { relay, told } = relayOf([]);
    relay.requested(request("c1"));
    relay.requested(request("c1"));
    relay.resolved({ ...answer("c1"), run_id: "r1" });
    expect(told.map((event) => [event.type, event.call_id, event.session_id])).toEqual([
      ["approval_requested", "c1", "k"],
      ["approval_resolved", "c1", "k"],
    ]);
  });

  it("catches up from the log with only what changed: new requests, and answers of relayed ones", async () => {
    const { relay, told } = relayOf([
      { pending: [request("c1")], decisions: {} },
      { pending: [request("c1")], decisions: {} },
      { pending: [request("c2")], decisions: { c1: answer("c1") } },
    ]);
    // A grandchild's call, relayed by the child: its log does not have it, so no catch-up ends it.
    relay.requested({ ...request("g1"), session_id: "g" });
    await relay.catchUp();
    await relay.catchUp();
    await relay.catchUp();
    expect(told.map((event) => [event.type, event.call_id, event.session_id])).toEqual([
      ["approval_requested", "g1", "g"],
      ["approval_requested", "c1", "k"],
      ["approval_resolved", "c1", "k"],
      ["approval_requested", "c2", "k"],
    ]);
    expect(told[2]!.run_id).toBe("r1");
  });

  it("reads the log again when an event of the child arrived during the read", async () => {
    let reads = 0;
    const { relay, told } = relayOf(
      [
        { pending: [request("c1")], decisions: {} },
        { pending: [], decisions: { c1: answer("c1") } },
      ],
      () => {
        // The first read is overtaken by the child's own answer event on this node.
        if (reads++ === 0) relay.resolved({ ...answer("c1"), run_id: "r1" });
      },
    );
    await relay.catchUp();
    // Without the second read the stale request would be told after its answer.
    expect(told.map((event) => event.type)).toEqual(["approval_resolved"]);
    expect(reads).toBe(2);
  });
});
