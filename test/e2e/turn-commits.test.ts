/**
 * What a plain turn (one prompt, a text answer, no tool calls) costs the storage, counted from
 * the daemon's group-commit figures (logged at each stop), and what clients see of the shortcuts
 * that make it cheap: an input admitted while the session is idle starts its turn in the same
 * commit, and the answer is committed with the turn's end. A retried input id still answers its
 * receipt, an input sent while a turn runs still waits in the queue, and the stream shows the
 * same events, in the same order, as before.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";
import { type DaemonHarness, databaseKinds, userTexts } from "./support/daemon-harness.js";
import { holdFirstRequest, startFixture, useSharedFixture } from "./support/fixture.js";
import { eventsOf, type StreamEvent } from "./support/sse-client.js";

/** The group-commit figures of the daemon's last run, from its `stopped` log line. */
function lastRunCommits(log: string): {
  transactions: number;
  fsyncs: number | null;
  statements: number | null;
  walFrames: number | null;
} {
  const runs = [...log.matchAll(/"groupCommit":(\{[^}]*\})/g)];
  const last = runs.at(-1);
  if (last === undefined) throw new Error(`no group-commit figures in the daemon's log:\n${log}`);
  const figures = JSON.parse(last[1]!) as {
    transactions: number;
    fsyncs?: number;
    statements?: number;
    walFrames?: number;
  };
  return {
    transactions: figures.transactions,
    fsyncs: figures.fsyncs ?? null,
    statements: figures.statements ?? null,
    walFrames: figures.walFrames ?? null,
  };
}

/**
 * The SQL statements a plain turn on a loaded, idle session runs on SQLite, pinned so that they
 * cannot grow back unnoticed: the shortcut's commit (the head read, the entry, the head, the
 * session's row with the input's order, the turn, the input stored delivered, BEGIN and COMMIT),
 * the end's (the head read, the entries, the head, the turn's end, the session's row, the
 * budget's usage, BEGIN and COMMIT), and the session's row read before the start. Finding no
 * input waiting at the end costs nothing: nothing was admitted since the queue was found empty.
 */
const statementsPerPlainTurn = 17;

/**
 * The pages those commits write to SQLite's write-ahead log (each copied into the database file
 * again by the checkpointer), on a small database: per commit the transcript's row and its
 * (session, position) index, the head, the session's row with its two
 * activity indexes; the start's input (its row and two unique indexes) and turn (its row, its
 * id, its session and the one-running index); the end's turn row and one-running index and the
 * budget's usage (its row and the profile's index); ~0.5 of page 1 (the file grew) and of the
 * transcript's next page. An input delivered as it is admitted writes no pending-index entry,
 * a turn's end none in the session index, and usage of no schedule none in the schedules' index
 * (migration 16): 29.35 before it. The transcript's `seq` is a plain rowid, so no commit writes
 * `sqlite_sequence` (26.35 with AUTOINCREMENT). `tsx bench/wal-pages.ts` lists them.
 */
const walPagesPerPlainTurn = 24.35;

/** An event as a short word: its type, and for inputs and messages what they say. */
function eventWord(event: StreamEvent): string {
  if (event.type === "input") {
    const input = event.data.input as { delivery: string; turn: { state: string } | null };
    return `input:${input.delivery}:${input.turn?.state ?? "none"}`;
  }
  if (event.type === "message") return `message:${(event.data.entry as { kind: string }).kind}`;
  return event.type;
}

describe.each(databaseKinds)("commits per turn ($name)", ({ database }) => {
  const shared = useSharedFixture({ database, answer: "ok" });

  async function put(sessionId: string, inputId: string, body: string) {
    return shared.app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      body: { kind: "message", text: body },
    });
  }

  it("commits a plain turn in at most two transactions", async () => {
    const sessionId = await shared.app.createSession();
    await shared.app.turn(sessionId, "warm up");
    // A daemon run that only loads the session, then one that also runs a turn: the difference
    // is what the turn cost.
    await shared.app.restart({ crash: false });
    await shared.app.idle(sessionId);
    await shared.app.restart({ crash: false });
    const loadOnly = lastRunCommits(shared.app.readLog());
    await shared.app.idle(sessionId);
    await shared.app.turn(sessionId, "counted");
    await shared.app.restart({ crash: false });
    const withTurn = lastRunCommits(shared.app.readLog());
    expect(withTurn.transactions - loadOnly.transactions).toBeLessThanOrEqual(2);
    // Where the backend counts its fsyncs (SQLite), those too.
    if (withTurn.fsyncs !== null && loadOnly.fsyncs !== null) {
      expect(withTurn.fsyncs - loadOnly.fsyncs).toBeLessThanOrEqual(2);
    }
    const history = await shared.app.history(sessionId);
    expect(userTexts(history.items)).toEqual(["warm up", "counted"]);
  });

  it.runIf(database === "sqlite")(
    `runs ${statementsPerPlainTurn} SQL statements and writes ~${walPagesPerPlainTurn} log pages per plain turn on a loaded session`,
    async () => {
      const sessionId = await shared.app.createSession();
      await shared.app.turn(sessionId, "warm up");
      // Runs that load the session and run one turn, then that and `counted` more: the
      // difference is what the turns cost.
      const env = { SKEIN_TEST_COUNT_STATEMENTS: "1", SKEIN_CHECKPOINTS: "0" };
      // Enough turns that one statement more per turn (30) stands out from a run's one-off
      // timer writes (the notification outbox's claim: up to ~10 statements, as timing has it).
      const counted = 30;
      // Turns are followed on the session's stream (polling snapshots would run statements too).
      const statementsOf = async (turns: number): Promise<{ statements: number; pages: number }> => {
        for (const [name, value] of Object.entries(env)) shared.app.setEnv(name, value);
        try {
          await shared.app.restart({ crash: false });
          const stream = await shared.app.openStream(sessionId);
          try {
            await stream.next();
            // The load's own work (its look for a turn to recover) ends first, so that every
            // run's first turn takes the same path.
            await new Promise((resolve) => setTimeout(resolve, 500));
            for (let i = 0; i <= turns; i++) {
              await put(sessionId, uuidv7(), `turn ${i}`);
              await stream.readUntil((event) => event.type === "turn_completed");
            }
          } finally {
            stream.close();
          }
          await shared.app.shutdown();
        } finally {
          for (const name of Object.keys(env)) shared.app.setEnv(name, undefined);
        }
        const { statements, walFrames } = lastRunCommits(shared.app.readLog());
        await shared.app.restart({ crash: false });
        return { statements: statements!, pages: walFrames! };
      };
      const base = await statementsOf(0);
      const more = await statementsOf(counted);
      expect(
        Math.abs(more.statements - base.statements - statementsPerPlainTurn * counted),
      ).toBeLessThanOrEqual(12);
      // One page more per turn (an index more, 30) stands out; page splits and the file's growth
      // vary by a few pages between runs.
      const pages = more.pages - base.pages;
      expect(Math.abs(pages - walPagesPerPlainTurn * counted), `${pages} pages`).toBeLessThanOrEqual(15);
    },
  );

  it("answers a retried input id with its receipt, and a reused one with input_conflict", async () => {
    const sessionId = await shared.app.createSession();
    const inputId = uuidv7();
    const first = await put(sessionId, inputId, "once");
    expect(first.status).toBe(202);
    expect(first.json()).toMatchObject({
      id: inputId,
      acceptance_order: 1,
      delivery: "pending",
      transcript_position: null,
      turn: null,
    });
    await shared.app.idle(sessionId);
    const stored = await shared.app.receipt(sessionId, inputId);
    expect(stored).toMatchObject({ delivery: "committed", turn: { state: "completed" } });

    // The session is idle again: the retry is recognised, not a second turn.
    const retry = await put(sessionId, inputId, "once");
    expect(retry.status).toBe(202);
    expect(retry.json()).toEqual(stored);
    const other = await put(sessionId, inputId, "something else");
    expect(other.status).toBe(409);
    expect(other.json().code).toBe("input_conflict");
    // The same id in another, idle session is a conflict too (the shortcut checks it as well).
    const elsewhere = await shared.app.createSession();
    const moved = await put(elsewhere, inputId, "once");
    expect(moved.status).toBe(409);
    expect(moved.json().code).toBe("input_conflict");
    await shared.app.idle(sessionId);
    expect(shared.provider.requests).toHaveLength(1);
    expect(userTexts((await shared.app.history(sessionId)).items)).toEqual(["once"]);
    expect(userTexts((await shared.app.history(elsewhere)).items)).toEqual([]);
    const snapshot = (await shared.app.api(`/sessions/${elsewhere}?tail=0`)).json<{ input_order: number }>();
    expect(snapshot.input_order).toBe(0);
  });

  it("queues an input sent while a turn runs, for the next turn", async () => {
    const held = holdFirstRequest(shared.provider, (index) => `answer ${index}`);
    const sessionId = await shared.app.createSession();
    const first = uuidv7();
    await shared.app.prompt(sessionId, "first", first);
    await shared.provider.waitForRequests(1);
    const second = uuidv7();
    const queued = await put(sessionId, second, "second");
    expect(queued.status).toBe(202);
    expect(queued.json()).toMatchObject({ delivery: "pending", acceptance_order: 2, turn: null });
    const waiting = (await shared.app.api(`/sessions/${sessionId}?tail=0`)).json<{
      pending_inputs: Array<{ id: string }>;
    }>();
    expect(waiting.pending_inputs.map((input) => input.id)).toEqual([second]);
    held.open();
    await shared.app.idle(sessionId);
    const receipts = await Promise.all([first, second].map((id) => shared.app.receipt(sessionId, id)));
    expect(receipts.map((receipt) => receipt.turn?.state)).toEqual(["completed", "completed"]);
    expect(receipts[1]!.turn!.id).not.toBe(receipts[0]!.turn!.id);
    expect(userTexts((await shared.app.history(sessionId)).items)).toEqual(["first", "second"]);
  });

  it("streams the input, its delivery, the messages and the turn's end in order", async () => {
    const sessionId = await shared.app.createSession();
    const stream = await shared.app.openStream(sessionId);
    try {
      await stream.next();
      const inputId = uuidv7();
      const answer = await put(sessionId, inputId, "hello");
      expect(answer.status).toBe(202);
      const frames = await stream.readUntil((event) => event.type === "turn_completed");
      const words = eventsOf(frames)
        .map(eventWord)
        .filter(
          (word) => word.startsWith("input:") || word.startsWith("message:") || word === "turn_completed",
        );
      expect(words).toEqual([
        "input:pending:none",
        "message:user",
        "input:committed:running",
        "message:assistant",
        "input:committed:completed",
        "turn_completed",
      ]);
      const pending = eventsOf(frames).find((event) => event.type === "input")!.data.input;
      expect(pending).toEqual(answer.json());
    } finally {
      stream.close();
    }
    await shared.app.idle(sessionId);
  });
});

describe("a turn whose start is slow to become durable", () => {
  // Every flush of the log to disk takes this long (off the main thread, as a slow disk would).
  const flushMs = 800;
  let provider: FakeProvider;
  let app: DaemonHarness;

  beforeAll(async () => {
    ({ provider, app } = await startFixture({ SKEIN_TEST_COMMIT_DELAY_MS: String(flushMs) }));
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it("sends the model request while its start is flushed, and tells no client of the turn before it is durable", async () => {
    provider.script = () => text(["one ", "two ", "three"]);
    const sessionId = await app.createSession();
    const stream = await app.openStream(sessionId);
    try {
      await stream.next();
      const sentAt = wallClock();
      const answered = app
        .api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
          method: "PUT",
          body: { kind: "message", text: "hello" },
        })
        .then((answer) => ({ answer, at: wallClock() }));
      await provider.waitForRequests(1);
      const requestAt = provider.requests[0]!.receivedAt;
      const { answer, at } = await answered;
      expect(answer.status).toBe(202);
      // The request did not wait for the flush; the answer to the input did.
      expect(requestAt - sentAt).toBeLessThan(flushMs / 2);
      expect(at - sentAt).toBeGreaterThanOrEqual(flushMs);
      const frames = await stream.readUntil((event) => event.type === "turn_completed", 30_000);
      const words = eventsOf(frames)
        .map(eventWord)
        .filter(
          (word) =>
            word.startsWith("input:") ||
            word.startsWith("message:") ||
            word === "text" ||
            word === "turn_completed",
        );
      // Everything the model streamed comes after the turn's start, as without the early request.
      expect(words.slice(0, 3)).toEqual(["input:pending:none", "message:user", "input:committed:running"]);
      expect(words.slice(3, -3).every((word) => word === "text")).toBe(true);
      expect(words.slice(-3)).toEqual(["message:assistant", "input:committed:completed", "turn_completed"]);
      const streamed = eventsOf(frames)
        .filter((event) => event.type === "text")
        .map((event) => (event.data as { text: string }).text)
        .join("");
      expect(streamed).toBe("one two three");
    } finally {
      stream.close();
    }
    await app.idle(sessionId, 30_000);
  });
});

/** Milliseconds since the epoch with fractions, the fake provider's clock. */
function wallClock(): number {
  return performance.timeOrigin + performance.now();
}
