/**
 * A `task` call in the parent's transcript: which agent works on what, how far it is (running,
 * waiting for an approval in the child, or how it ended), the child's tokens, a link to the
 * child's session page, where its work streams live, and the child's waiting calls, answered
 * here at the child's approval route.
 */
import { type ReactNode, useEffect, useState } from "react";
import type { SessionSnapshot } from "../../../src/api/session-snapshot.js";
import type { PendingApproval } from "../approvals/approval-state.js";
import { ApprovalsPanel } from "../approvals/approvals-panel.js";
import { call } from "../daemon-api.js";
import type { TaskFacts } from "./task-state.js";

/** The head of a task block (its result, once there, goes beneath it like any call's). */
export function TaskHead({ facts, fork }: { facts: TaskFacts; fork: ReactNode }) {
  const live = facts.state === "running" || facts.state.startsWith("waiting");
  return (
    <div className="task-head">
      <span className="tool-name">task</span> <strong className="task-agent">{facts.agent}</strong>{" "}
      <span className={`task-state ${live ? "live" : facts.state}`} data-testid="task-state">
        {facts.state}
      </span>
      {facts.tokens === null ? null : (
        <span className="task-tokens" data-testid="task-tokens">
          {" "}
          {facts.tokens.toLocaleString()} tokens
        </span>
      )}
      {facts.childId === null ? null : (
        <a className="task-link" href={`#/sessions/${facts.childId}`} data-testid="task-link">
          {live ? "follow live" : "open its session"}
        </a>
      )}
      {fork}
      {facts.prompt === "" ? null : <div className="task-prompt">{facts.prompt}</div>}
      {facts.childId === null ? null : <ChildApprovals childId={facts.childId} facts={facts} />}
    </div>
  );
}

/** The child's waiting calls, answered at its own route; the relayed answer takes them away. */
function ChildApprovals({ childId, facts }: { childId: string; facts: TaskFacts }) {
  const waiting = useChildWaiting(childId, facts);
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const [failure, setFailure] = useState<string | null>(null);
  const shown = waiting.filter((approval) => !answered.has(approval.call_id));
  return (
    <>
      {failure !== null ? <div className="banner failure">{failure}</div> : null}
      <ApprovalsPanel
        approvals={shown}
        onAnswer={async (callId, answer) => {
          try {
            await call<unknown>(
              "POST",
              `/sessions/${encodeURIComponent(childId)}/approvals/${encodeURIComponent(callId)}`,
              answer,
            );
            setAnswered((before) => new Set(before).add(callId));
            setFailure(null);
          } catch (error) {
            // Answered meanwhile elsewhere, say: the reason shows, the relayed answer clears the call.
            setFailure(error instanceof Error ? error.message : String(error));
          }
        }}
      />
    </>
  );
}

/**
 * The calls the child waits on: those relayed on the parent's stream, or, when the listing says
 * it waits and none were relayed here (they came before the page opened), its snapshot's.
 */
function useChildWaiting(childId: string, facts: TaskFacts): readonly PendingApproval[] {
  const [looked, setLooked] = useState<readonly PendingApproval[]>([]);
  const lookUp = facts.approvals.length === 0 && facts.state === "waiting for approval";
  useEffect(() => {
    if (!lookUp) {
      setLooked([]);
      return;
    }
    let current = true;
    call<SessionSnapshot>("GET", `/sessions/${encodeURIComponent(childId)}?tail=0`).then(
      (snapshot) => current && setLooked(snapshot.pending_approvals),
      () => current && setLooked([]),
    );
    return () => {
      current = false;
    };
  }, [childId, lookUp]);
  return facts.approvals.length > 0 ? facts.approvals : looked;
}
