/**
 * A session: its header (status, model, tokens, budget, workspace, the approval mode selector, where it
 * was forked from and its forks), the connection state, turn errors (a refused one with the repair form), pending
 * approvals, the live transcript and the input box.
 */

import { type ReactNode, useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { approvalModes } from "../../../src/api/approval-modes.js";
import type { ApprovalMode } from "../../../src/api/approvals.js";
import type { BudgetView } from "../../../src/api/budget.js";
import type { HistoryEntry } from "../../../src/api/history.js";
import type { SessionList } from "../../../src/api/sessions.js";
import { ApprovalsPanel } from "../approvals/approvals-panel.js";
import { call } from "../daemon-api.js";
import { navigate } from "../route.js";
import { PlanPanel } from "../transcript/plan-panel.js";
import { currentPlan } from "../transcript/plan-state.js";
import type { TranscriptState } from "../transcript/transcript-state.js";
import { TranscriptView } from "../transcript/transcript-view.js";
import { CostWithAgents, useCostWithAgents } from "./agents-cost.js";
import { RepairForm } from "./repair-form.js";
import { SessionController } from "./session-controller.js";

export interface SessionPageProps {
  sessionId: string;
  /** The daemon answers approvals (its `approvals` capability). */
  approvals: boolean;
}

/** The page of one session. */
export function SessionPage({ sessionId, approvals }: SessionPageProps) {
  const controller = useMemo(() => new SessionController(sessionId), [sessionId]);
  useEffect(() => {
    controller.start();
    return () => controller.stop();
  }, [controller]);
  const view = useSyncExternalStore(controller.subscribe, controller.view);
  const { forks, agents } = useForksAndAgents(sessionId, view.transcript);

  const onFork = useCallback(
    (entry: HistoryEntry) => {
      void controller.fork(entry).then((id) => {
        if (id !== null) navigate(`/sessions/${id}`);
      });
    },
    [controller],
  );
  const onLoadOlder = useCallback(() => void controller.loadOlder(), [controller]);

  const state = view.transcript;
  const connection =
    view.connection === "live" ? null : (
      <div className="banner connection" data-testid="connection">
        {view.connection === "connecting" ? "connecting…" : "reconnecting…"}
      </div>
    );
  if (state === null) {
    return (
      <main className="session">
        {connection}
        {view.failure !== null ? <div className="banner failure">{view.failure}</div> : null}
      </main>
    );
  }
  const { status } = state;
  // Running, or waiting for an approval on a daemon that has them: both can be interrupted.
  const busy = status.phase !== "idle" || state.pendingInputs.size > 0;
  return (
    <main className="session">
      <SessionHeader
        state={state}
        forks={forks}
        agents={agents}
        modeSelect={
          approvals ? (
            <ApprovalModeSelect
              mode={state.summary.approval_mode}
              onChange={(mode) => void controller.setApprovalMode(mode)}
            />
          ) : null
        }
      />
      {connection}
      {status.blocking_reason !== null ? (
        <div className="banner failure">{status.blocking_reason.detail}</div>
      ) : null}
      <NoticeBanner notice={view.failure ?? state.notice} onDismiss={() => controller.dismiss()} />
      <TurnErrors state={state} onRepair={(from, to) => controller.repair(from, to)} />
      {approvals ? (
        <ApprovalsPanel
          approvals={state.approvals}
          onAnswer={(callId, answer) => controller.answerApproval(callId, answer)}
        />
      ) : null}
      <PlanPanel todos={currentPlan(state.entries, state.summary.todos)} />
      <TranscriptView
        state={state}
        agents={agents}
        loadingOlder={view.loadingOlder}
        onLoadOlder={onLoadOlder}
        onFork={onFork}
      />
      <Composer
        busy={busy}
        onSend={(text) => controller.send(text)}
        onInterrupt={() => controller.interrupt()}
      />
    </main>
  );
}

/**
 * The session's name, status, model, tokens and cost (with its agents' when it has some) and workspace,
 * where it was forked from (or which session's task it works on) and its forks and agents.
 */
function SessionHeader({
  state,
  forks,
  agents,
  modeSelect,
}: {
  state: TranscriptState;
  forks: SessionList["items"];
  agents: SessionList["items"];
  /** The approval mode selector, where the daemon answers approvals. */
  modeSelect: ReactNode;
}) {
  const { summary, status, usage } = state;
  const costWithAgents = useCostWithAgents(summary.id, agents, usage.total_tokens);
  return (
    <header className="session-header">
      <div>
        <h1>{summary.name ?? (summary.preview.text || "New session")}</h1>
        <div className="meta">
          <span className={`status ${status.phase}`} data-testid="status">
            {status.interrupt_requested ? "interrupting" : status.phase}
          </span>
          <span>{summary.model ?? "no model"}</span>
          <span data-testid="usage">{usage.total_tokens.toLocaleString()} tokens</span>
          {agents.length > 0 ? (
            <span data-testid="usage-total">
              {agents
                .reduce((sum, child) => sum + child.usage.total_tokens, usage.total_tokens)
                .toLocaleString()}{" "}
              with agents
            </span>
          ) : null}
          <CostWithAgents cost={costWithAgents} />
          <BudgetMeter budget={summary.budget} />
          <code>{summary.workspace}</code>
          {modeSelect}
        </div>
        <div className="lineage">
          {summary.parent_id !== null ? (
            <a href={`#/sessions/${summary.parent_id}`} data-testid="parent">
              {summary.agent === null
                ? `forked from ${summary.parent_id.slice(0, 13)}`
                : `agent ${summary.agent}, a task of ${summary.parent_id.slice(0, 13)}`}
            </a>
          ) : null}
          {agents.length > 0 ? (
            <span data-testid="agents">
              agents:{" "}
              {agents.map((child) => (
                <a key={child.id} href={`#/sessions/${child.id}`}>
                  {child.agent} ({child.status.phase})
                </a>
              ))}
            </span>
          ) : null}
          {forks.length > 0 ? (
            <span>
              forks:{" "}
              {forks.map((fork) => (
                <a key={fork.id} href={`#/sessions/${fork.id}`}>
                  {fork.name ?? fork.id.slice(0, 13)}
                </a>
              ))}
            </span>
          ) : null}
        </div>
      </div>
    </header>
  );
}

/** The tightest budget that applies to the session (as its snapshot said), if any. */
function BudgetMeter({ budget }: { budget: BudgetView | null }) {
  if (budget === null) return null;
  const parts: string[] = [];
  if (budget.limit.max_tokens !== null)
    parts.push(`${budget.used.tokens.toLocaleString()} / ${budget.limit.max_tokens.toLocaleString()} tokens`);
  if (budget.limit.max_cost_usd !== null)
    parts.push(`$${budget.used.cost_usd.toFixed(2)} / $${budget.limit.max_cost_usd.toFixed(2)}`);
  const period = budget.period === "day" ? " today" : "";
  return (
    <span
      className={budget.exhausted ? "budget exhausted" : "budget"}
      data-testid="budget"
      title={`${budget.scope} budget`}
    >
      {budget.exhausted ? "budget exhausted: " : "budget: "}
      {parts.join(", ")}
      {period}
    </span>
  );
}

/**
 * The session's forks and its agents' sessions, listed again when a task starts or ends, or the
 * session's phase changes, and while agents work.
 */
function useForksAndAgents(
  sessionId: string,
  transcript: TranscriptState | null,
): { forks: SessionList["items"]; agents: SessionList["items"] } {
  const [agentsWork, setAgentsWork] = useState(false);
  const children = useChildren(sessionId, transcript?.tasks, transcript?.status.phase, agentsWork);
  const forks = useMemo(() => children.filter((child) => child.agent === null), [children]);
  const agents = useMemo(() => children.filter((child) => child.agent !== null), [children]);
  useEffect(() => {
    const running = [...(transcript?.tasks.values() ?? [])].some((task) => task.state === "running");
    setAgentsWork(running || agents.some((child) => child.status.phase !== "idle"));
  }, [transcript?.tasks, agents]);
  return { forks, agents };
}

/**
 * The forks and `task` children of a session (none when they cannot be listed), listed again
 * when its tasks or its phase change, and every 3 s while `polling` (a child's status and
 * tokens are not on this session's stream: an agent waiting for an approval, say).
 */
function useChildren(
  sessionId: string,
  tasks: unknown,
  phase: unknown,
  polling: boolean,
): SessionList["items"] {
  const [children, setChildren] = useState<SessionList["items"]>([]);
  useEffect(() => {
    void [tasks, phase];
    let current = true;
    const load = (): void => {
      call<SessionList>("GET", `/sessions?parent_id=${encodeURIComponent(sessionId)}`).then(
        (list) => current && setChildren(list.items),
        () => current && setChildren([]),
      );
    };
    load();
    const timer = polling ? setInterval(load, 3_000) : undefined;
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [sessionId, tasks, phase, polling]);
  return children;
}

/** The latest notice or failure, until dismissed. */
function NoticeBanner({ notice, onDismiss }: { notice: string | null; onDismiss(): void }) {
  if (notice === null) return null;
  return (
    <div className="banner notice" data-testid="notice">
      {notice}
      <button type="button" onClick={onDismiss}>
        dismiss
      </button>
    </div>
  );
}

/** The turns' errors; a refused request (the last error) comes with the repair form. */
function TurnErrors({
  state,
  onRepair,
}: {
  state: TranscriptState;
  onRepair: (from: number, to: number) => Promise<void>;
}) {
  return (
    <>
      {state.errors.map((error, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: errors are only appended.
        <div key={index} className="banner failure" data-testid="turn-error">
          <div>
            {error.code}: {error.message}
            {error.code === "provider_refused" && index === state.errors.length - 1 ? (
              <RepairForm entries={state.entries} onRepair={(from, to) => onRepair(from, to)} />
            ) : null}
          </div>
        </div>
      ))}
    </>
  );
}

/** What runs without asking in this session: one of the approval modes (docs/http-api.md). */
function ApprovalModeSelect({ mode, onChange }: { mode: ApprovalMode; onChange(mode: ApprovalMode): void }) {
  return (
    <label className="approval-mode" title="What the agent may do without asking">
      approvals{" "}
      <select
        data-testid="approval-mode"
        value={mode}
        onChange={(event) => {
          const chosen = approvalModes.find((candidate) => candidate === event.target.value);
          if (chosen !== undefined) onChange(chosen);
        }}
      >
        {approvalModes.map((candidate) => (
          <option key={candidate} value={candidate}>
            {candidate}
          </option>
        ))}
      </select>
    </label>
  );
}

function Composer({
  busy,
  onSend,
  onInterrupt,
}: {
  busy: boolean;
  onSend(text: string): Promise<void>;
  onInterrupt(): Promise<void>;
}) {
  const [text, setText] = useState("");
  const send = (): void => {
    if (text.trim() === "") return;
    void onSend(text);
    setText("");
  };
  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <textarea
        aria-label="Message"
        placeholder="Message the agent (Enter sends, Shift+Enter for a new line)"
        value={text}
        rows={3}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey) {
            event.preventDefault();
            send();
          }
        }}
      />
      <div className="buttons">
        <button type="submit" disabled={text.trim() === ""}>
          Send
        </button>
        <button type="button" className="danger" disabled={!busy} onClick={() => void onInterrupt()}>
          Interrupt
        </button>
      </div>
    </form>
  );
}
