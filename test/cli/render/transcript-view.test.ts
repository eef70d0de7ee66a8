/**
 * TranscriptView: streamed text, committed entries and resets never show anything twice.
 */
import { Writable } from "node:stream";
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../src/api/history.js";
import type { SessionEvent } from "../../../src/api/session-events.js";
import type { OutputStream } from "../../../src/cli/render/terminal.js";
import { TranscriptView } from "../../../src/cli/render/transcript-view.js";

class Collector extends Writable {
  text = "";
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString("utf8");
    done();
  }
}

function output(): { output: OutputStream; sink: Collector } {
  const sink = new Collector();
  return { output: { stream: sink, tty: false, paint: pc.createColors(false), columns: 100 }, sink };
}

function view(options: { showThinking?: boolean } = {}) {
  const { output: out, sink } = output();
  const transcript = new TranscriptView({
    text: out,
    aside: out,
    showThinking: options.showThinking ?? true,
    showUserEntries: true,
  });
  return { transcript, sink };
}

let sequence = 0;
function delta(type: "text" | "thinking", text: string, run = "run-1", message = "run-1:0"): SessionEvent {
  return { type, sequence: ++sequence, data: { run_id: run, message_id: message, text } } as SessionEvent;
}

function entry(id: string, kind: HistoryEntry["kind"], text: string, turn = "run-1"): HistoryEntry {
  return {
    id,
    position: Number.parseInt(id, 10),
    kind,
    turn_id: turn,
    input_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    content: text === "" ? [] : [{ kind: "text", text }],
    checkpoint_id: id,
    tool: null,
  };
}

function message(item: HistoryEntry): SessionEvent {
  return { type: "message", sequence: ++sequence, data: { entry: item } };
}

describe("TranscriptView", () => {
  it("prints streamed text once when the entry that commits it arrives", () => {
    const { transcript, sink } = view();
    transcript.onEvent(delta("text", "Hello, "));
    transcript.onEvent(delta("text", "world."));
    transcript.onEvent(message(entry("2", "assistant", "Hello, world.")));
    transcript.finish();
    expect(sink.text).toBe("Hello, world.\n");
  });

  it("marks an answer an interrupt cut short (interrupted), live and from history", () => {
    const live = view();
    live.transcript.onEvent(delta("text", "Half a sent", "run-7", "run-7:0"));
    live.transcript.onEvent(
      message({ ...entry("2", "assistant", "Half a sent", "run-7"), interrupted: true }),
    );
    live.transcript.finish();
    expect(live.sink.text).toBe("Half a sent\n(interrupted)\n");
    const replayed = view();
    replayed.transcript.onEvent(
      message({ ...entry("2", "assistant", "Half a sent", "run-8"), interrupted: true }),
    );
    replayed.transcript.onEvent(message(entry("3", "assistant", "Whole.", "run-9")));
    replayed.transcript.finish();
    expect(replayed.sink.text).toBe("Half a sent\n(interrupted)\nWhole.\n");
  });

  it("holds the next turn's events while paused, and shows them in order once resumed", () => {
    const { transcript, sink } = view();
    transcript.onEvent(delta("text", "First."));
    transcript.onEvent(message(entry("2", "assistant", "First.")));
    transcript.finish();
    transcript.pause();
    transcript.onEvent(delta("text", "Second", "run-2", "run-2:0"));
    // What the caller writes meanwhile (the last turn's footer) comes first.
    sink.write("── footer\n");
    expect(sink.text).toBe("First.\n── footer\n");
    transcript.resume();
    transcript.onEvent(message(entry("4", "assistant", "Second answer.", "run-2")));
    transcript.finish();
    expect(sink.text).toBe("First.\n── footer\nSecond answer.\n");
  });

  it("adds only what the deltas missed when the committed text is longer", () => {
    const { transcript, sink } = view();
    transcript.onEvent(delta("text", "The start"));
    transcript.onEvent(message(entry("2", "assistant", "The start and the end.")));
    transcript.finish();
    expect(sink.text).toBe("The start and the end.\n");
  });

  describe("with entries sent truncated", () => {
    /** An assistant entry whose one text part came as its first `preview` characters of `bytes`. */
    function truncated(id: string, kind: HistoryEntry["kind"], preview: string, bytes: number): HistoryEntry {
      return {
        ...entry(id, kind, ""),
        content: [
          {
            kind: "text",
            text: preview,
            truncated: true,
            bytes,
            encoding: "text",
            ref: `/x/${id}/content?part=0`,
          },
        ],
      };
    }

    it("shows a streamed answer once: the deltas held all of the truncated entry", () => {
      const { transcript, sink } = view();
      const whole = "é".repeat(30);
      transcript.onEvent(delta("text", whole.slice(0, 12)));
      transcript.onEvent(delta("text", whole.slice(12)));
      transcript.onEvent(message(truncated("2", "assistant", whole.slice(0, 5), 60)));
      transcript.finish();
      expect(sink.text).toBe(`${whole}\n`);
    });

    it("keeps the rest of the streamed text for the next entry of the same message", () => {
      const { transcript, sink } = view();
      transcript.onEvent(delta("text", "aaaaaaaaaabbb"));
      transcript.onEvent(message(truncated("2-0", "assistant", "aaa", 10)));
      transcript.onEvent(message(entry("2-1", "assistant", "bbb")));
      transcript.finish();
      expect(sink.text).toBe("aaaaaaaaaabbb\n");
    });

    it("shows the start and a note when nothing was streamed, and only a note when deltas were lost", () => {
      const fresh = view();
      fresh.transcript.renderEntries([truncated("2", "assistant", "The start", 9_000_000)]);
      fresh.transcript.renderEntries([truncated("3", "user", "A long prompt", 5_000_000)]);
      fresh.transcript.finish();
      expect(fresh.sink.text).toBe(
        "The start\n[… 9000000 bytes, skein show --full]\n› A long prompt\n[… 5000000 bytes, skein show --full]\n",
      );

      const lost = view();
      lost.transcript.onEvent(delta("text", "The start and"));
      lost.transcript.onEvent(message(truncated("2", "assistant", "The start", 9_000_000)));
      lost.transcript.finish();
      expect(lost.sink.text).toBe("The start and\n[… 9000000 bytes, skein show --full]\n");
    });
  });

  it("shows thinking and text as separate paragraphs, and hides thinking when asked", () => {
    const shown = view();
    shown.transcript.onEvent(delta("thinking", "hmm", "run-1", "run-1:0:thinking"));
    shown.transcript.onEvent(delta("text", "answer"));
    shown.transcript.onEvent(message(entry("2-0", "thinking", "hmm")));
    shown.transcript.onEvent(message(entry("2-1", "assistant", "answer")));
    shown.transcript.finish();
    expect(shown.sink.text).toBe("hmm\nanswer\n");

    const hidden = view({ showThinking: false });
    hidden.transcript.onEvent(delta("thinking", "hmm", "run-1", "run-1:0:thinking"));
    hidden.transcript.onEvent(delta("text", "answer"));
    hidden.transcript.onEvent(message(entry("2-0", "thinking", "hmm")));
    hidden.transcript.onEvent(message(entry("2-1", "assistant", "answer")));
    hidden.transcript.finish();
    expect(hidden.sink.text).toBe("answer\n");
  });

  it("shows one line per tool call, whether it is seen live, from history, or both", () => {
    const { transcript, sink } = view();
    const call: HistoryEntry = {
      ...entry("3", "tool_call", ""),
      content: [{ kind: "json", field: "arguments", value: { path: "a.txt" } }],
      tool: { name: "read_file", tool_call_id: "call-1" },
    };
    const result: HistoryEntry = {
      ...entry("4", "tool_result", ""),
      content: [{ kind: "json", field: "result", value: "line one\nline two" }],
      tool: { name: "read_file", tool_call_id: "call-1", is_error: false },
    };
    transcript.onEvent(message(call));
    transcript.onEvent({
      type: "tool",
      sequence: ++sequence,
      data: {
        tool_call_id: "call-1",
        name: "read_file",
        arguments: '{"path":"a.txt"}',
        result: null,
        is_error: false,
      },
    });
    transcript.onEvent({
      type: "tool",
      sequence: ++sequence,
      data: {
        tool_call_id: "call-1",
        name: "read_file",
        arguments: '{"path":"a.txt"}',
        result: "line one\nline two",
        is_error: false,
      },
    });
    transcript.onEvent(message(result));
    // The same entries again, as a reset's snapshot would bring them.
    transcript.applyReset([call, result], null, "— reset");
    expect(sink.text).toBe("⚙ read_file a.txt → 2 lines\n— reset —\n");
  });

  it("after a reset shows the entries it has not seen and says when streamed text was never saved", () => {
    const { transcript, sink } = view();
    transcript.onEvent(message(entry("1", "user", "first question")));
    transcript.onEvent(delta("text", "partial answer that the crash ", "run-2", "run-2:0"));
    const snapshotEntries = [
      entry("1", "user", "first question"),
      entry("2", "note", "the daemon restarted", "run-2"),
    ];
    transcript.applyReset(snapshotEntries, "run-3", "— reconnected");
    transcript.onEvent(delta("text", "Recovered.", "run-3", "run-3:0"));
    transcript.onEvent(message(entry("3", "assistant", "Recovered.", "run-3")));
    transcript.finish();
    expect(sink.text).toBe(
      "› first question\n" +
        "partial answer that the crash \n" +
        "— reconnected; the unsaved end of the output above was dropped —\n" +
        "note: the daemon restarted\n" +
        "Recovered.\n",
    );
  });

  it("does not echo the user's own inputs but shows other clients' prompts", () => {
    const { transcript, sink } = view();
    transcript.markOwnInput("input-mine");
    transcript.onEvent(message({ ...entry("1", "user", "typed here"), input_id: "input-mine" }));
    transcript.onEvent(message({ ...entry("5", "user", "typed elsewhere"), input_id: "input-theirs" }));
    expect(sink.text).toBe("› typed elsewhere\n");
  });
});
