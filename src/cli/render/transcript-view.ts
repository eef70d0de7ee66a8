/**
 * The live transcript of a session on a terminal: streamed text as it arrives, thinking dimmed
 * (or hidden), one line per tool call, notes and notices.
 *
 * Boundary rule: rendering only; it never talks to the daemon. It is fed stream events and
 * history entries (from `message` events and from reset snapshots) and guarantees that nothing
 * is shown twice: entries are remembered by id, tool calls by call id, and text already shown
 * from deltas is matched against the entry that commits it, so only what the deltas missed is
 * printed. Deltas are not durable: when a daemon restart loses a turn's uncommitted text, that
 * text stays on screen and a notice says so; nothing is reprinted. A message already under way
 * when the view joined (attach mid-turn, or a reset) has lost its start: its deltas are held,
 * not shown, and the committed entry is printed whole once it arrives, so the text shows once,
 * complete and in order. How text reaches the streams (open lines, markdown) is
 * transcript-writer.ts's.
 */
import { type HistoryEntry, isTruncatedPart } from "../../api/history.js";
import type { SessionEvent } from "../../api/session-events.js";
import { unreachable } from "../../model/unreachable.js";
import { compactionLine } from "./compaction-line.js";
import { exclusionLine } from "./exclusion-line.js";
import { interruptedMark } from "./interrupted-mark.js";
import { outcomeNotice } from "./outcome-notice.js";
import { dropsUnsavedText, type StreamedSegment } from "./streamed-segment.js";
import { TaskNotices } from "./task-line.js";
import { entryJson, entryText, toolLines } from "./tool-line.js";
import type { TranscriptViewOptions } from "./transcript-view-options.js";
import { type DeltaKind, TranscriptWriter } from "./transcript-writer.js";
import { displayText, hasTruncatedParts, streamedPrefix, truncationNote } from "./truncated-text.js";
import { editDiffLines } from "./unified-diff.js";

/** Renders a session's live transcript without ever showing anything twice. */
export class TranscriptView {
  showThinking: boolean;
  readonly #options: TranscriptViewOptions;
  /** Events held while paused (see `pause`); null when not paused. */
  #paused: SessionEvent[] | null = null;
  readonly #known = new Set<string>();
  readonly #ownInputs = new Set<string>();
  readonly #shownTools = new Set<string>();
  readonly #calls = new Map<string, { name: string; args: unknown }>();
  readonly #tasks = new TaskNotices();
  readonly #segments: StreamedSegment[] = [];
  readonly #writer: TranscriptWriter;
  /** A run that was under way when the view joined, until one of its messages starts in view. */
  #joinedTurn: string | null = null;
  /** Whether holding it back is worth a line (on attach; after a reset, its notice says enough). */
  #sayHeld = false;
  readonly #collapsedThoughts = new Set<string>();
  /** The newest answer's text (all its committed assistant entries) and its run, for /copy. */
  #lastAnswer = { turnId: null as string | null, text: "" };

  constructor(options: TranscriptViewOptions) {
    this.#options = options;
    this.#writer = new TranscriptWriter(options);
    this.showThinking = options.showThinking;
  }

  /** An input sent from here: its user entry is not echoed (the person just typed it). */
  markOwnInput(inputId: string): void {
    this.#ownInputs.add(inputId);
  }

  /**
   * The view joins a session whose turn `turnId` is under way (e.g. attach mid-turn): the message
   * being streamed has lost its start, so it is held back and printed whole once committed.
   */
  joinedDuring(turnId: string | null): void {
    this.#joinedTurn = turnId;
    this.#sayHeld = true;
  }

  /** The text of the newest answer committed (empty before one). */
  get lastAnswer(): string {
    return this.#lastAnswer.text;
  }

  /** Whether the entry with this id was shown (or deliberately skipped) already. */
  knows(entryId: string): boolean {
    return this.#known.has(entryId);
  }

  /** Remember entries as seen without showing them (history the person does not need again). */
  markKnown(entries: readonly HistoryEntry[]): void {
    for (const entry of entries) {
      this.#known.add(entry.id);
      if (entry.kind === "tool_call" && entry.tool !== null) this.#rememberCall(entry);
      if (entry.kind === "tool_result" && entry.tool !== null) this.#shownTools.add(entry.tool.tool_call_id);
    }
  }

  /** Show the entries not shown yet, in order. */
  renderEntries(entries: readonly HistoryEntry[]): void {
    for (const entry of entries) this.#entry(entry);
  }

  /**
   * After a reset: one notice line (saying so when streamed text above was never saved), then
   * what the snapshot has that was not shown; text segments of runs that are over are dropped
   * (their uncommitted text is gone for good).
   */
  applyReset(entries: readonly HistoryEntry[], runningTurnId: string | null, notice: string): void {
    const unsaved = dropsUnsavedText(this.#segments, entries, (id) => this.#known.has(id), runningTurnId);
    this.notice(unsaved ? `${notice}; the unsaved end of the output above was dropped —` : `${notice} —`);
    this.renderEntries(entries);
    for (let i = this.#segments.length - 1; i >= 0; i--) {
      if (this.#segments[i]!.turnId !== runningTurnId) this.#segments.splice(i, 1);
    }
    this.#writer.endParagraph();
    // A message of the running run now streams on from an unknown point: hold it like an attach.
    this.#joinedTurn = runningTurnId;
    this.#sayHeld = false;
  }

  /**
   * Hold the events that come from now on until `resume()`: what the caller still writes about
   * the last turn (its footer, after a round trip) must come before anything of the next one.
   */
  pause(): void {
    this.#paused ??= [];
  }

  /** Show the events held since `pause()`, in order, and every later one as it comes. */
  resume(): void {
    const held = this.#paused;
    this.#paused = null;
    for (const event of held ?? []) this.onEvent(event);
  }

  /** Feed one stream event. */
  onEvent(event: SessionEvent): void {
    if (this.#paused !== null) {
      this.#paused.push(event);
      return;
    }
    switch (event.type) {
      case "text":
      case "thinking":
        if (!this.#wanted(event.data.run_id)) return;
        this.#delta(event.type, event.data.run_id, event.data.message_id, event.data.text);
        return;
      case "message":
        if (event.data.entry.turn_id === this.#joinedTurn) this.#joinedTurn = null;
        this.#entry(event.data.entry);
        return;
      case "tool": {
        // A tool call ends the model message under way: the next one streams from its start.
        this.#joinedTurn = null;
        const { tool_call_id: id, name, arguments: args, result } = event.data;
        if (result === null) {
          this.#calls.set(id, { name, args });
          // The spinner redraws its own line: it must not sit on (and wipe) an unfinished one.
          this.#writer.endParagraph();
          this.#options.spinner?.start(`running ${name}…`);
          return;
        }
        if (!this.#showToolOnce(id, { name, args, result, isError: event.data.is_error === true })) return;
        this.#calls.set(id, { name, args });
        if (event.data.is_error !== true) this.#editDiff(name, args, this.#options.readWorkspaceFile);
        return;
      }
      case "retry": {
        if (!this.#wanted(event.data.run_id)) return;
        if (event.data.adjusted !== undefined) {
          this.notice(`the provider refused the request: ${event.data.reason}`);
          return;
        }
        const seconds = (event.data.delay_ms / 1000).toFixed(1);
        this.notice(
          `provider request failed (${event.data.reason}); retry ${event.data.attempt} in ${seconds} s`,
        );
        return;
      }
      case "error":
        if (this.#options.showErrors === false || !this.#wanted(event.data.run_id)) return;
        this.#writer.asideLine(this.#options.aside.paint.red(`error: ${event.data.message}`));
        return;
      case "turn_completed":
        // A finished turn ends its line (another client's turn gets no status line after it).
        if (!this.#wanted(event.data.run_id)) return;
        this.#writer.endParagraph();
        if (outcomeNotice(event.data.outcome) !== null) this.notice(outcomeNotice(event.data.outcome)!);
        return;
      case "compaction_started":
        this.notice(`compacting the context (${event.data.trigger})…`);
        return;
      case "compaction_failed":
        this.notice(`compaction failed: ${event.data.message}`);
        return;
      case "status":
        // A status change of the joined run is seen live: messages after it are seen whole.
        if (event.data.run_id === this.#joinedTurn || event.data.phase === "idle") this.#joinedTurn = null;
        return;
      case "task_started":
      case "task_completed":
        this.notice(this.#tasks.notice(event));
        return;
      case "compaction_completed":
      case "input":
      case "usage":
      case "committed":
      case "approval_requested":
      case "approval_resolved":
        return;
      default:
        unreachable(event, "unhandled stream event");
    }
  }

  /** One dim line on the aside stream. */
  notice(text: string): void {
    this.#writer.asideLine(this.#options.aside.paint.dim(text));
  }

  /** One line on the aside stream as given (already styled). */
  line(text: string): void {
    this.#writer.asideLine(text);
  }

  /** End any unfinished line (call before the prompt comes back, or before exiting). */
  finish(): void {
    this.#options.spinner?.stop();
    this.#writer.endParagraph();
  }

  #wanted(turnId: string | null): boolean {
    return this.#options.turnFilter === undefined || this.#options.turnFilter(turnId);
  }

  #delta(kind: DeltaKind, turnId: string, messageId: string, text: string): void {
    let segment = this.#segments.find((s) => s.kind === kind && s.messageId === messageId);
    if (segment === undefined) {
      segment = { kind, turnId, messageId, shown: "", held: turnId === this.#joinedTurn };
      this.#segments.push(segment);
      if (segment.held && kind === "text" && this.#sayHeld) {
        this.notice("(joined mid-answer: it is shown whole once complete)");
      }
    }
    segment.shown += text;
    if (!segment.held) this.#stream(kind, `${kind}:${messageId}`, text);
  }

  #entry(entry: HistoryEntry): void {
    if (this.#known.has(entry.id)) return;
    this.#known.add(entry.id);
    if (!this.#wanted(entry.turn_id)) {
      if (entry.kind === "tool_call") this.#rememberCall(entry);
      return;
    }
    const paint = this.#options.aside.paint;
    switch (entry.kind) {
      case "user": {
        if (!this.#options.showUserEntries) return;
        if (entry.input_id !== null && this.#ownInputs.has(entry.input_id)) return;
        const text = this.#options.text.paint;
        this.#writer.textLine(`${text.bold(text.cyan("›"))} ${text.bold(displayText(entry))}`);
        return;
      }
      case "assistant":
      case "thinking":
        this.#committedText(entry.kind === "assistant" ? "text" : "thinking", entry);
        if (entry.interrupted === true && entry.kind === "assistant")
          this.#writer.asideLine(paint.dim(interruptedMark));
        return;
      case "tool_call":
        this.#rememberCall(entry);
        return;
      case "tool_result": {
        if (entry.tool === null) return;
        const call = this.#calls.get(entry.tool.tool_call_id);
        const shown = this.#showToolOnce(entry.tool.tool_call_id, {
          name: call?.name ?? entry.tool.name,
          args: call?.args ?? {},
          result: entryJson(entry, "result"),
          isError: entry.tool.is_error === true,
        });
        if (shown && entry.tool.is_error !== true) this.#editDiff(call?.name ?? entry.tool.name, call?.args);
        return;
      }
      case "note":
        this.#writer.asideLine(paint.dim(`note: ${displayText(entry)}`));
        return;
      case "continuation":
        this.#writer.asideLine(paint.dim("(continue)"));
        return;
      case "compaction":
        this.#writer.asideLine(paint.dim(compactionLine(entry)));
        return;
      case "context_excluded":
        this.#writer.asideLine(paint.dim(exclusionLine(entry)));
        return;
      default:
        unreachable(entry.kind, "unhandled history entry kind");
    }
  }

  /** A committed assistant/thinking entry: print only what deltas did not show already. */
  #committedText(kind: DeltaKind, entry: HistoryEntry): void {
    const full = entryText(entry);
    if (kind === "text" && full !== "") {
      const same = this.#lastAnswer.turnId === entry.turn_id && this.#lastAnswer.text !== "";
      this.#lastAnswer = { turnId: entry.turn_id, text: same ? `${this.#lastAnswer.text}\n\n${full}` : full };
    }
    const index = this.#segments.findIndex((s) => s.kind === kind && s.turnId === entry.turn_id);
    if (index === -1) {
      if (full === "") return;
      this.#streamWhole(kind, entry, displayText(entry));
      return;
    }
    const segment = this.#segments[index]!;
    if (segment.held) {
      // Nothing of it was printed: print the durable text whole (its start was never streamed).
      this.#segments.splice(index, 1);
      if (full === "") return;
      this.#streamWhole(kind, entry, displayText(entry));
      return;
    }
    if (hasTruncatedParts(entry)) {
      this.#committedTruncated(index, entry);
      return;
    }
    if (full.startsWith(segment.shown)) {
      this.#segments.splice(index, 1);
      const rest = full.slice(segment.shown.length);
      if (rest !== "") this.#stream(kind, `${kind}:${segment.messageId}`, rest);
      return;
    }
    if (segment.shown.startsWith(full)) {
      // Several entries committed from one streamed message: this one is shown, the rest waits.
      segment.shown = segment.shown.slice(full.length);
      return;
    }
    // The deltas and the committed text disagree (deltas were lost): show the durable text.
    this.#segments.splice(index, 1);
    this.#streamWhole(kind, entry, full);
  }

  /** A committed entry's text as a paragraph of its own (nothing of it was streamed, or not right). */
  #streamWhole(kind: DeltaKind, entry: HistoryEntry, text: string): void {
    this.#writer.endParagraph();
    this.#stream(kind, `${kind}:entry:${entry.id}`, text);
    this.#writer.endParagraph();
  }

  /**
   * A committed entry that came truncated: the deltas showed it whole when they hold its size;
   * otherwise (deltas were lost) only a note says how much there is and where to read it.
   */
  #committedTruncated(index: number, entry: HistoryEntry): void {
    const segment = this.#segments[index]!;
    const prefix = streamedPrefix(entry, segment.shown);
    if (prefix !== null && prefix.length < segment.shown.length) {
      segment.shown = segment.shown.slice(prefix.length);
      return;
    }
    this.#segments.splice(index, 1);
    if (prefix !== null) return;
    const bytes = entry.content.reduce((sum, part) => sum + (isTruncatedPart(part) ? part.bytes : 0), 0);
    this.#writer.asideLine(this.#options.aside.paint.dim(truncationNote(bytes)));
  }

  /** A finished tool call's lines, unless its call id was shown already; whether they were shown now. */
  #showToolOnce(
    id: string,
    call: { name: string; args: unknown; result: unknown; isError: boolean },
  ): boolean {
    if (this.#shownTools.has(id)) return false;
    this.#shownTools.add(id);
    for (const line of toolLines(this.#options.aside.paint, call, this.#options.aside.columns))
      this.#writer.asideLine(line);
    return true;
  }

  /** A file edit's diff under its tool line (the arguments' change; the file before it is gone). */
  #editDiff(name: string, args: unknown, readAfter?: (path: string) => string | null): void {
    for (const line of editDiffLines(this.#options.aside.paint, name, args, 24, readAfter))
      this.#writer.asideLine(`  ${line}`);
  }

  #rememberCall(entry: HistoryEntry): void {
    if (entry.tool !== null)
      this.#calls.set(entry.tool.tool_call_id, {
        name: entry.tool.name,
        args: entryJson(entry, "arguments"),
      });
  }

  /** Write streamed text into the paragraph `key`, starting a new line if another paragraph was open. */
  #stream(kind: DeltaKind, key: string, text: string): void {
    if (kind === "thinking" && !this.showThinking) {
      // Collapsed to one line per thought, so it is clear the model is thinking.
      if (this.#options.collapseThinking === true && !this.#collapsedThoughts.has(key)) {
        this.#collapsedThoughts.add(key);
        this.#writer.asideLine(this.#options.aside.paint.dim("✻ thinking… (hidden; /thinking shows it)"));
      }
      return;
    }
    this.#writer.stream(kind, key, text);
  }
}
