/**
 * The tool calls waiting for a person's decision: tool, arguments (a diff for file edits),
 * allow / deny, "always for this pattern in this session", and a message to the model.
 */
import { useState } from "react";
import { toolEdits, toolSubject } from "../transcript/tool-view.js";
import { type ApprovalAnswer, argumentsObject, type PendingApproval } from "./approval-state.js";

export interface ApprovalsPanelProps {
  approvals: readonly PendingApproval[];
  onAnswer(callId: string, answer: ApprovalAnswer): Promise<void>;
}

/** The panel; nothing when no approval waits. */
export function ApprovalsPanel({ approvals, onAnswer }: ApprovalsPanelProps) {
  if (approvals.length === 0) return null;
  return (
    <section className="approvals" data-testid="approvals">
      <h2>Waiting for your decision</h2>
      {approvals.map((approval) => (
        <ApprovalCard key={approval.call_id} approval={approval} onAnswer={onAnswer} />
      ))}
    </section>
  );
}

function ApprovalCard({
  approval,
  onAnswer,
}: {
  approval: PendingApproval;
  onAnswer: ApprovalsPanelProps["onAnswer"];
}) {
  const [remember, setRemember] = useState(false);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const answer = async (decision: "allow" | "deny"): Promise<void> => {
    setBusy(true);
    try {
      const body: ApprovalAnswer = { decision, client_id: "skein-web" };
      if (remember) body.remember = true;
      if (message.trim() !== "") body.message = message;
      await onAnswer(approval.call_id, body);
    } finally {
      setBusy(false);
    }
  };
  const args = argumentsObject(approval.arguments);
  const edit = toolEdits(approval.tool, args);
  const subject = toolSubject(approval.tool, args);
  return (
    <div className="approval" data-call-id={approval.call_id}>
      <div>
        <span className="tool-name">{approval.tool}</span> {subject === null ? null : <code>{subject}</code>}
      </div>
      {edit ?? <pre className="json">{JSON.stringify(args ?? approval.arguments, null, 2)}</pre>}
      <label>
        <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.target.checked)} />{" "}
        always for this pattern in this session
      </label>
      <textarea
        placeholder="message to the model (optional; the answer to a question)"
        value={message}
        onChange={(event) => setMessage(event.target.value)}
        rows={2}
      />
      <div className="buttons">
        <button type="button" disabled={busy} onClick={() => void answer("allow")}>
          Allow
        </button>
        <button type="button" className="danger" disabled={busy} onClick={() => void answer("deny")}>
          Deny
        </button>
      </div>
    </div>
  );
}
