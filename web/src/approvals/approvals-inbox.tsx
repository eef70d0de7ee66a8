/**
 * The approvals inbox across sessions: every session whose turn waits for an approval (phase
 * `waiting` in the live session list), with its waiting calls, answerable here.
 */
import { useEffect, useState } from "react";
import type { SessionSnapshot, SessionSummary } from "../../../src/api/session-snapshot.js";
import { call } from "../daemon-api.js";
import type { ApprovalAnswer, PendingApproval } from "./approval-state.js";
import { ApprovalsPanel } from "./approvals-panel.js";

/** The inbox; nothing while no session waits. `except`: a session whose page shows its own. */
export function ApprovalsInbox({
  sessions,
  except,
}: {
  sessions: readonly SessionSummary[];
  except?: string;
}) {
  const waiting = sessions.filter((session) => session.status.phase === "waiting" && session.id !== except);
  if (waiting.length === 0) return null;
  return (
    <section className="inbox" data-testid="approvals-inbox">
      <h2>Waiting for you ({waiting.length})</h2>
      {waiting.map((session) => (
        <WaitingSession key={session.id} session={session} />
      ))}
    </section>
  );
}

/** One waiting session: its name (a link) and its pending approvals, read from its snapshot. */
function WaitingSession({ session }: { session: SessionSummary }) {
  const [approvals, setApprovals] = useState<readonly PendingApproval[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const path = `/sessions/${encodeURIComponent(session.id)}`;
  useEffect(() => {
    call<SessionSnapshot>("GET", `${path}?tail=0`).then(
      (snapshot) => setApprovals(snapshot.pending_approvals),
      (error: unknown) => setFailure(String(error)),
    );
  }, [path]);
  const onAnswer = async (callId: string, answer: ApprovalAnswer): Promise<void> => {
    try {
      await call<unknown>("POST", `${path}/approvals/${encodeURIComponent(callId)}`, answer);
      setApprovals((current) => current.filter((approval) => approval.call_id !== callId));
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <div className="inbox-session" data-session-id={session.id}>
      <a href={`#${path}`}>{session.name ?? (session.preview.text || session.id.slice(0, 13))}</a>
      {failure !== null ? <div className="banner failure">{failure}</div> : null}
      <ApprovalsPanel approvals={approvals} onAnswer={onAnswer} />
    </div>
  );
}
