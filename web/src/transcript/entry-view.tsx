/**
 * One history entry as the page shows it: user and assistant text as markdown, thinking
 * collapsed, a tool call with its arguments (a diff for file edits) and, beneath it, its result.
 * Every entry element carries `data-entry-id`; those with a checkpoint offer "fork here".
 */
import { memo, type ReactNode, useState } from "react";
import {
  type ContentSlice,
  type HistoryEntry,
  type HistoryPart,
  isTruncatedPart,
} from "../../../src/api/history.js";
import { argumentsObject } from "../approvals/approval-state.js";
import { call } from "../daemon-api.js";
import { Markdown } from "./markdown.js";
import type { TaskFacts } from "./task-state.js";
import { TaskHead } from "./task-view.js";
import { isFileEdit, toolEdits, toolSubject } from "./tool-view.js";

export interface EntryViewProps {
  entry: HistoryEntry;
  /** The result entry of a tool call, shown beneath it. */
  result?: HistoryEntry | undefined;
  running?: boolean;
  onFork?: ((entry: HistoryEntry) => void) | undefined;
  /** A `task` call's facts: it is shown as a task block. */
  task?: TaskFacts | undefined;
}

/**
 * The attributes of an assistant or thinking entry's element; one an interrupt cut short is
 * marked as the live page marks its unsaved drafts.
 */
function answerAttributes(entry: HistoryEntry, kind: "assistant" | "thinking") {
  const cut = entry.interrupted === true;
  return {
    className: cut ? `entry ${kind} interrupted` : `entry ${kind}`,
    "data-entry-id": entry.id,
    "data-kind": kind,
    "data-testid": cut ? (kind === "assistant" ? "interrupted-answer" : "interrupted-thinking") : undefined,
  };
}

/** An assistant entry, marked when an interrupt cut it short. */
function AnswerView({ entry, fork }: { entry: HistoryEntry; fork: ReactNode }) {
  return (
    <div {...answerAttributes(entry, "assistant")}>
      <div className="who">
        Agent {entry.interrupted === true ? <span className="interrupted-mark">interrupted</span> : null}{" "}
        {fork}
      </div>
      <PartsText parts={entry.content} markdown />
    </div>
  );
}

/** A thinking entry, collapsed, with how long the model thought and whether an interrupt cut it short. */
function ThinkingView({ entry }: { entry: HistoryEntry }) {
  const seconds = entry.thinking_duration_ms;
  return (
    <details {...answerAttributes(entry, "thinking")}>
      <summary>
        Thinking{seconds != null ? ` (${(seconds / 1000).toFixed(1)} s)` : ""}
        {entry.interrupted === true ? " (interrupted)" : ""}
      </summary>
      <PartsText parts={entry.content} />
    </details>
  );
}

/** One entry (with its tool result, for a call). */
export const EntryView = memo(function EntryView({ entry, result, running, onFork, task }: EntryViewProps) {
  const fork =
    onFork !== undefined && entry.checkpoint_id !== null ? (
      <button
        type="button"
        className="fork"
        title="Fork a new session from here"
        onClick={() => onFork(entry)}
      >
        fork here
      </button>
    ) : null;
  switch (entry.kind) {
    case "user":
      return (
        <div className="entry user" data-entry-id={entry.id} data-kind="user">
          <div className="who">You {fork}</div>
          <PartsText parts={entry.content} markdown />
        </div>
      );
    case "assistant":
      return <AnswerView entry={entry} fork={fork} />;
    case "thinking":
      return <ThinkingView entry={entry} />;
    case "tool_call":
      if (task !== undefined) return <TaskBlock id={entry.id} facts={task} fork={fork} result={result} />;
      return <ToolCallView entry={entry} result={result} running={running === true} fork={fork} />;
    case "tool_result":
      return <ResultView entry={entry} />;
    case "note":
      return (
        <div className="entry note" data-entry-id={entry.id} data-kind="note">
          <PartsText parts={entry.content} />
          {fork}
        </div>
      );
    case "continuation":
      return (
        <div className="entry continuation" data-entry-id={entry.id} data-kind="continuation">
          continued
        </div>
      );
    case "compaction":
      return <CompactionView entry={entry} fork={fork} />;
    case "context_excluded":
      return (
        <div className="entry excluded" data-entry-id={entry.id} data-kind="context_excluded">
          <PartsText parts={entry.content} />
        </div>
      );
    default: {
      const unknown: never = entry.kind;
      return <div data-entry-id={entry.id}>{String(unknown)}</div>;
    }
  }
});

/** A tool call: its name, summary and arguments, its state, and beneath it its result. */
function ToolCallView({
  entry,
  result,
  running,
  fork,
}: {
  entry: HistoryEntry;
  result: HistoryEntry | undefined;
  running: boolean;
  fork: ReactNode;
}) {
  return (
    <div className="entry tool" data-entry-id={entry.id} data-kind="tool_call" data-testid="tool-call">
      <details open={running || isEdit(entry)}>
        <summary>
          <span className="tool-name">{entry.tool?.name ?? "tool"}</span> <ToolSummary entry={entry} />
          {running ? <span className="running"> running…</span> : null}
          {result?.tool?.is_error === true ? <span className="tool-error"> failed</span> : null}
          {fork}
        </summary>
        <ToolArguments entry={entry} />
      </details>
      {result !== undefined ? <ResultView entry={result} /> : null}
    </div>
  );
}

/** A `task` call: its head (task-view.tsx) and, beneath it, its result like any call's. */
function TaskBlock(props: {
  id: string;
  facts: TaskFacts;
  fork: ReactNode;
  result: HistoryEntry | undefined;
}) {
  return (
    <div className="entry tool task" data-entry-id={props.id} data-kind="tool_call" data-testid="task-block">
      <TaskHead facts={props.facts} fork={props.fork} />
      {props.result !== undefined ? <ResultView entry={props.result} /> : null}
    </div>
  );
}

/** A compaction: the summary that replaced older messages, collapsed. */
function CompactionView({ entry, fork }: { entry: HistoryEntry; fork: ReactNode }) {
  return (
    <details className="entry compaction" data-entry-id={entry.id} data-kind="compaction">
      <summary>
        context compacted
        {entry.compaction === undefined
          ? ""
          : ` (${entry.compaction.before_tokens} → ${entry.compaction.after_tokens} tokens)`}
        {fork}
      </summary>
      <PartsText parts={entry.content} />
    </details>
  );
}

function ResultView({ entry }: { entry: HistoryEntry }) {
  return (
    <details
      className={`entry tool-result${entry.tool?.is_error === true ? " is-error" : ""}`}
      data-entry-id={entry.id}
      data-kind="tool_result"
      data-testid="tool-result"
    >
      <summary>result{entry.tool?.is_error === true ? " (error)" : ""}</summary>
      <PartsText parts={entry.content} />
    </details>
  );
}

function isEdit(entry: HistoryEntry): boolean {
  return isFileEdit(entry.tool?.name);
}

function argumentsOf(entry: HistoryEntry): unknown {
  const part = entry.content.find(
    (candidate) => candidate.kind === "json" && candidate.field === "arguments",
  );
  return part?.kind === "json" ? part.value : undefined;
}

/** A short line saying what the call is about (its path or command). */
function ToolSummary({ entry }: { entry: HistoryEntry }) {
  const subject = toolSubject(entry.tool?.name ?? "", argumentsObject(argumentsOf(entry)));
  return subject === null ? null : <code className="tool-subject">{subject}</code>;
}

function ToolArguments({ entry }: { entry: HistoryEntry }) {
  const part = entry.content.find(
    (candidate) => candidate.kind === "json" && candidate.field === "arguments",
  );
  if (part !== undefined && isTruncatedPart(part)) return <PartsText parts={[part]} />;
  const args = argumentsObject(argumentsOf(entry));
  const edits = toolEdits(entry.tool?.name, args);
  if (edits !== null) return edits;
  return <pre className="json">{JSON.stringify(argumentsOf(entry), null, 2)}</pre>;
}

/** The text of an entry's parts; a truncated part can be loaded whole. */
function PartsText({ parts, markdown = false }: { parts: readonly HistoryPart[]; markdown?: boolean }) {
  return (
    <>
      {parts.map((part, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: an entry's parts never change.
        <PartText key={index} part={part} markdown={markdown} />
      ))}
    </>
  );
}

function PartText({ part, markdown }: { part: HistoryPart; markdown: boolean }) {
  const [whole, setWhole] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const text =
    whole ??
    (part.kind === "text"
      ? part.text
      : typeof part.value === "string"
        ? part.value
        : JSON.stringify(part.value, null, 2));
  const body = markdown ? <Markdown text={text} /> : <pre className="text">{text}</pre>;
  if (!isTruncatedPart(part) || whole !== null) return body;
  const load = async (): Promise<void> => {
    setLoading(true);
    try {
      setWhole(await wholeContent(part.ref));
    } finally {
      setLoading(false);
    }
  };
  return (
    <>
      {body}
      <button type="button" className="truncated" disabled={loading} onClick={() => void load()}>
        {loading ? "loading…" : `… truncated; load all ${part.bytes.toLocaleString()} bytes`}
      </button>
    </>
  );
}

/** The whole content behind a truncated part's `ref`, slice by slice. */
async function wholeContent(ref: string): Promise<string> {
  let text = "";
  for (let offset: number | null = 0; offset !== null; ) {
    const slice: ContentSlice = await call<ContentSlice>("GET", `${ref}&offset=${offset}`);
    text += slice.text;
    offset = slice.next_offset;
  }
  return text;
}
