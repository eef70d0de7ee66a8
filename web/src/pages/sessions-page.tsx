/**
 * Every session, live (the session list's stream), as a fork tree: each session under the one
 * it was forked from (an agent's session, under the one whose task started it, marked with its
 * agent), newest activity first, tokens counted with its agents'; and a form for a new session.
 */
import { useMemo, useState } from "react";
import { v7 as uuidv7 } from "uuid";
import type { InputReceipt } from "../../../src/api/inputs.js";
import type { SessionSnapshot, SessionSummary } from "../../../src/api/session-snapshot.js";
import { tokensWithAgents } from "../../../src/api/session-tree.js";
import { ApprovalsInbox } from "../approvals/approvals-inbox.js";
import { call } from "../daemon-api.js";
import { navigate } from "../route.js";
import { byActivity, useSessionList } from "../sessions/use-session-list.js";

/** The sessions page. */
export function SessionsPage() {
  const { sessions, connection } = useSessionList();
  const ordered = useMemo(() => byActivity(sessions), [sessions]);
  const children = useMemo(() => {
    const byParent = new Map<string | null, SessionSummary[]>();
    for (const session of ordered) {
      const parent = session.parent_id !== null && sessions.has(session.parent_id) ? session.parent_id : null;
      byParent.set(parent, [...(byParent.get(parent) ?? []), session]);
    }
    return byParent;
  }, [ordered, sessions]);
  const tokens = useMemo(() => tokensWithAgents(ordered), [ordered]);

  return (
    <main className="sessions">
      {connection === "live" ? null : (
        <div className="banner connection" data-testid="connection">
          {connection === "connecting" ? "connecting…" : "reconnecting…"}
        </div>
      )}
      <ApprovalsInbox sessions={ordered} />
      <NewSessionForm defaultWorkspace={ordered[0]?.workspace ?? ""} />
      <table className="session-list" data-testid="session-list">
        <thead>
          <tr>
            <th>Session</th>
            <th>Status</th>
            <th>Updated</th>
            <th>Tokens</th>
          </tr>
        </thead>
        <tbody>
          <SessionRows parent={null} depth={0} tree={children} tokens={tokens} />
        </tbody>
      </table>
      {ordered.length === 0 && connection === "live" ? <p className="empty">No sessions yet.</p> : null}
    </main>
  );
}

/** The tree's rows and what each needs: its sessions by parent, and each session's tokens with its agents'. */
interface TreeProps {
  depth: number;
  tree: ReadonlyMap<string | null, SessionSummary[]>;
  tokens: ReadonlyMap<string, number>;
}

function SessionRows({ parent, ...props }: TreeProps & { parent: string | null }) {
  return (
    <>
      {(props.tree.get(parent) ?? []).map((session) => (
        <SessionRow key={session.id} session={session} {...props} />
      ))}
    </>
  );
}

function SessionRow({ session, depth, tree, tokens }: TreeProps & { session: SessionSummary }) {
  const title = session.name ?? (session.preview.text || "(no prompt yet)");
  return (
    <>
      <tr data-session-id={session.id}>
        <td style={{ paddingLeft: `${0.5 + depth * 1.5}rem` }}>
          {depth > 0 ? <span className="fork-mark">↳ </span> : null}
          {session.agent === null ? null : <span className="agent-mark">agent {session.agent}</span>}
          <a href={`#/sessions/${session.id}`}>{title}</a>
          <div className="sub">
            {session.id.slice(0, 13)} · {session.model ?? "no model"} · {session.preview.transcript_count}{" "}
            entries
          </div>
        </td>
        <td>
          <span className={`status ${session.status.phase}`}>{session.status.phase}</span>
        </td>
        <td title={session.activity_at}>{relativeTime(session.activity_at)}</td>
        <td data-testid="tokens">
          {(tokens.get(session.id) ?? session.usage.total_tokens).toLocaleString()}
        </td>
      </tr>
      <SessionRows parent={session.id} depth={depth + 1} tree={tree} tokens={tokens} />
    </>
  );
}

function NewSessionForm({ defaultWorkspace }: { defaultWorkspace: string }) {
  const [workspace, setWorkspace] = useState<string | null>(null);
  const [prompt, setPrompt] = useState("");
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const folder = workspace ?? defaultWorkspace;
  const create = async (): Promise<void> => {
    setBusy(true);
    setFailure(null);
    const id = uuidv7();
    try {
      await call<SessionSnapshot>(
        "PUT",
        `/sessions/${id}`,
        { kind: "new", workspace: folder },
        { "if-none-match": "*" },
      );
      if (prompt.trim() !== "") {
        await call<InputReceipt>("PUT", `/sessions/${id}/inputs/${uuidv7()}`, {
          kind: "message",
          text: prompt,
        });
      }
      navigate(`/sessions/${id}`);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      className="new-session"
      onSubmit={(event) => {
        event.preventDefault();
        void create();
      }}
    >
      <h2>New session</h2>
      <label>
        Workspace (an absolute folder on the daemon's machine)
        <input
          name="workspace"
          value={folder}
          onChange={(event) => setWorkspace(event.target.value)}
          placeholder="/home/me/project"
          required
        />
      </label>
      <label>
        First message (optional)
        <textarea name="prompt" value={prompt} onChange={(event) => setPrompt(event.target.value)} rows={2} />
      </label>
      <button type="submit" disabled={busy || folder.trim() === ""}>
        Create
      </button>
      {failure !== null ? <div className="banner failure">{failure}</div> : null}
    </form>
  );
}

function relativeTime(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}
