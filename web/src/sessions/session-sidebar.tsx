/**
 * The session page's sidebar: every session (live; an agent's session indented under the one
 * whose task started it, marked with its agent), a search over them, and the approvals inbox
 * across sessions. Hidden on a phone, where the sessions page does its work.
 */
import { useMemo, useState } from "react";
import { agentsBeneathParents } from "../../../src/api/session-tree.js";
import { ApprovalsInbox } from "../approvals/approvals-inbox.js";
import { matchesSearch } from "./session-search.js";
import { byActivity, useSessionList } from "./use-session-list.js";

/** The sidebar, with `current` marked. */
export function SessionSidebar({ current }: { current: string }) {
  const { sessions } = useSessionList();
  const [query, setQuery] = useState("");
  const ordered = useMemo(() => byActivity(sessions), [sessions]);
  const found = agentsBeneathParents(ordered.filter((session) => matchesSearch(session, query)));
  return (
    <aside className="sidebar" data-testid="sidebar">
      <input
        type="search"
        aria-label="Search sessions"
        placeholder="Search sessions"
        value={query}
        onChange={(event) => setQuery(event.target.value)}
      />
      <ApprovalsInbox sessions={ordered} except={current} />
      <ul className="sidebar-sessions">
        {found.map(({ session, depth }) => (
          <li
            key={session.id}
            data-session-id={session.id}
            className={`${session.id === current ? "current " : ""}depth-${Math.min(depth, 3)}`}
          >
            {session.agent === null ? null : <span className="agent-mark">↳ {session.agent}</span>}
            <a href={`#/sessions/${session.id}`}>
              {session.name ?? (session.preview.text || "(no prompt yet)")}
            </a>
            <span className={`status ${session.status.phase}`}>{session.status.phase}</span>
          </li>
        ))}
      </ul>
      {found.length === 0 ? <p className="empty">No session matches.</p> : null}
    </aside>
  );
}
