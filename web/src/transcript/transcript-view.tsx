/**
 * The transcript: older history paged in when the top comes into view (the scroll position
 * kept), committed entries, streamed drafts and messages sent but not yet committed. It sticks
 * to the bottom while the reader is there.
 */
import { Fragment, type RefObject, useEffect, useLayoutEffect, useMemo, useRef } from "react";
import type { HistoryEntry } from "../../../src/api/history.js";
import type { SessionSummary } from "../../../src/api/session-snapshot.js";
import { EntryView } from "./entry-view.js";
import { Markdown } from "./markdown.js";
import { type TaskFacts, taskFacts } from "./task-state.js";
import type { Draft, InterruptedDraft, TranscriptState } from "./transcript-state.js";

export interface TranscriptViewProps {
  state: TranscriptState;
  /** The session's `task` children as listed (for tasks the stream did not announce here). */
  agents: readonly SessionSummary[];
  loadingOlder: boolean;
  onLoadOlder(): void;
  onFork(entry: HistoryEntry): void;
}

/** The User Timing mark set once per page load, when a transcript with entries is first in the DOM. */
const transcriptRenderedMark = "skein:transcript-rendered";
let marked = false;

/** The scrolling transcript. */
export function TranscriptView({ state, agents, loadingOlder, onLoadOlder, onFork }: TranscriptViewProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const top = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const heightBefore = useRef<{ height: number; first: string | undefined } | null>(null);

  const { results, nested } = useMemo(() => resultsBeneathCalls(state.entries), [state.entries]);
  const childOfCall = useMemo(
    () => new Map(agents.map((child) => [child.parent_call_id ?? "", child])),
    [agents],
  );
  const taskOf = (entry: HistoryEntry): TaskFacts | undefined => {
    const callId = entry.tool?.tool_call_id;
    if (entry.kind !== "tool_call" || entry.tool?.name !== "task" || callId === undefined) return undefined;
    const progress = state.tasks.get(callId);
    return taskFacts(entry, results.get(callId), progress, childOfCall.get(callId), state.childApprovals);
  };
  useLoadWhenSeen(top, scroller, onLoadOlder);

  const first = state.entries[0]?.id;
  useLayoutEffect(() => {
    if (!marked && state.entries.length > 0) {
      marked = true;
      performance.mark(transcriptRenderedMark);
    }
    const root = scroller.current;
    if (root === null) return;
    const before = heightBefore.current;
    if (before !== null && before.first !== first) {
      // Older entries were put above: keep what the reader looks at where it was.
      root.scrollTop += root.scrollHeight - before.height;
    } else if (atBottom.current) {
      root.scrollTop = root.scrollHeight;
    }
    heightBefore.current = { height: root.scrollHeight, first };
  });

  return (
    <div
      className="transcript"
      ref={scroller}
      data-testid="transcript"
      onScroll={(event) => {
        const root = event.currentTarget;
        atBottom.current = root.scrollHeight - root.scrollTop - root.clientHeight < 40;
        heightBefore.current = { height: root.scrollHeight, first };
      }}
    >
      <div ref={top} className="older">
        {state.older === null ? "the beginning of the session" : loadingOlder ? "loading older entries…" : ""}
      </div>
      <InterruptedDrafts kept={state.interrupted} after={null} />
      {state.entries.map((entry) =>
        nested.has(entry.id) ? null : (
          <Fragment key={entry.id}>
            <EntryView
              entry={entry}
              result={entry.tool === null ? undefined : results.get(entry.tool.tool_call_id)}
              running={entry.tool !== null && state.runningTools.has(entry.tool.tool_call_id)}
              onFork={onFork}
              task={taskOf(entry)}
            />
            <InterruptedDrafts kept={state.interrupted} after={entry.id} />
          </Fragment>
        ),
      )}
      {state.drafts.map((draft) => (
        <DraftView key={draft.messageId} draft={draft} />
      ))}
      {state.sent.map((input) => (
        <div key={input.inputId} className="entry user sent" data-testid="sent">
          <div className="who">You (sending…)</div>
          <Markdown text={input.text} />
        </div>
      ))}
    </div>
  );
}

/** Tool results are shown beneath their calls (when the call is shown): each by call id, and which are. */
function resultsBeneathCalls(entries: readonly HistoryEntry[]): {
  results: Map<string, HistoryEntry>;
  nested: Set<string>;
} {
  const calls = new Set(
    entries.filter((entry) => entry.kind === "tool_call").map((entry) => entry.tool?.tool_call_id),
  );
  const results = new Map<string, HistoryEntry>();
  const nested = new Set<string>();
  for (const entry of entries) {
    const callId = entry.tool?.tool_call_id;
    if (entry.kind === "tool_result" && callId !== undefined && calls.has(callId)) {
      results.set(callId, entry);
      nested.add(entry.id);
    }
  }
  return { results, nested };
}

/** Call `onSeen` whenever `target` comes (within 200 px) into view of the scrolling `root`. */
function useLoadWhenSeen(
  target: RefObject<HTMLDivElement | null>,
  root: RefObject<HTMLDivElement | null>,
  onSeen: () => void,
): void {
  useEffect(() => {
    const seenTarget = target.current;
    const scrollRoot = root.current;
    if (seenTarget === null || scrollRoot === null) return undefined;
    const observer = new IntersectionObserver(
      (seen) => {
        if (seen.some((entry) => entry.isIntersecting)) onSeen();
      },
      { root: scrollRoot, rootMargin: "200px 0px 0px 0px" },
    );
    observer.observe(seenTarget);
    return () => observer.disconnect();
  }, [target, root, onSeen]);
}

/** A message or thinking being streamed. */
function DraftView({ draft }: { draft: Draft }) {
  return draft.kind === "thinking" ? (
    <details className="entry thinking draft" data-testid="draft-thinking" open>
      <summary>Thinking…</summary>
      <pre className="text">{draft.text}</pre>
    </details>
  ) : (
    <div className="entry assistant draft" data-testid="draft">
      <div className="who">Agent</div>
      <Markdown text={`${draft.partial ? "… " : ""}${draft.text}`} />
    </div>
  );
}

/** What interrupted turns streamed after the entry `after`, marked interrupted (never committed). */
function InterruptedDrafts({ kept, after }: { kept: readonly InterruptedDraft[]; after: string | null }) {
  return (
    <>
      {kept
        .filter((item) => item.afterEntryId === after)
        .map(({ draft }) =>
          draft.kind === "thinking" ? (
            <details
              key={draft.messageId}
              className="entry thinking interrupted"
              data-testid="interrupted-thinking"
            >
              <summary>Thinking (interrupted)</summary>
              <pre className="text">{draft.text}</pre>
            </details>
          ) : (
            <div
              key={draft.messageId}
              className="entry assistant interrupted"
              data-testid="interrupted-answer"
            >
              <div className="who">
                Agent <span className="interrupted-mark">interrupted</span>
              </div>
              <Markdown text={`${draft.partial ? "… " : ""}${draft.text}`} />
            </div>
          ),
        )}
    </>
  );
}
