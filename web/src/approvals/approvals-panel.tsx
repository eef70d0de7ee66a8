/**
 * The tool calls waiting for a person's decision: tool, arguments (a diff for file edits),
 * allow / deny, "always for this pattern in this session", and a message to the model; for a
 * call a daemon restart cut short (`unknown_outcome`), retry / skip / done instead.
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
  const answer = async (decision: ApprovalAnswer["decision"]): Promise<void> => {
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
  const unknownOutcome = approval.kind === "unknown_outcome";
  return (
    <div className="approval" data-call-id={approval.call_id} data-kind={approval.kind}>
      <div>
        <span className="tool-name">{approval.tool}</span> {subject === null ? null : <code>{subject}</code>}
      </div>
      {unknownOutcome ? (
        <p className="unknown-outcome">
          A daemon restart cut this call short: did it run? Retry runs it again, Skip tells the model it did
          not run, Done tells the model it ran (the message, if any, is its result).
        </p>
      ) : null}
      {edit ?? <pre className="json">{JSON.stringify(args ?? approval.arguments, null, 2)}</pre>}
      {unknownOutcome ? (
        <OutcomeAnswer busy={busy} message={message} setMessage={setMessage} answer={answer} />
      ) : (
        <VerdictAnswer
          busy={busy}
          message={message}
          setMessage={setMessage}
          remember={remember}
          setRemember={setRemember}
          answer={answer}
        />
      )}
    </div>
  );
}

interface AnswerControls {
  busy: boolean;
  message: string;
  setMessage(message: string): void;
  answer(decision: ApprovalAnswer["decision"]): Promise<void>;
}

/** Retry / Skip / Done, with an optional message (a skip's reason, a done call's result). */
function OutcomeAnswer({ busy, message, setMessage, answer }: AnswerControls) {
  return (
    <>
      <textarea
        placeholder="message to the model (optional; for Done, the call's result)"
        value={message}
        onChange={(event) => setMessage(event.target.value)}
        rows={2}
      />
      <div className="buttons">
        <button type="button" disabled={busy} onClick={() => void answer("retry")}>
          Retry
        </button>
        <button type="button" disabled={busy} onClick={() => void answer("skip")}>
          Skip
        </button>
        <button type="button" disabled={busy} onClick={() => void answer("done")}>
          Done
        </button>
      </div>
    </>
  );
}

/** Allow / Deny, "always", and a message to the model. */
function VerdictAnswer({
  busy,
  message,
  setMessage,
  remember,
  setRemember,
  answer,
}: AnswerControls & { remember: boolean; setRemember(remember: boolean): void }) {
  return (
    <>
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
    </>
  );
}
