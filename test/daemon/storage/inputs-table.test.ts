import { describe, expect, it } from "vitest";
import {
  InputConflictError,
  InputNotPendingError,
  InputUnknownError,
  QueueFullError,
} from "../../../src/daemon/errors.js";
import { openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import { admitInput, defaultQueueLimit } from "../../../src/daemon/storage/input-admission.js";
import {
  cancelInput,
  cancelInputsThrough,
  getReceipt,
  listPendingInputs,
  markInputsCommitted,
  type NewInput,
  pendingInputJson,
} from "../../../src/daemon/storage/inputs-table.js";
import { getSession } from "../../../src/daemon/storage/sessions-table.js";
import { endTurn, startTurn } from "../../../src/daemon/storage/turns-table.js";
import { SessionNotFoundError } from "../../../src/log/errors.js";
import { addSession, tempDatabase } from "./temp-database.js";

const t0 = Date.parse("2025-01-02T03:04:05.678Z");

function message(session: string, id: string, text: string, extra: Partial<NewInput> = {}): NewInput {
  return { session, id, kind: "message", intent: { kind: "message", text }, acceptedAt: t0, ...extra };
}

describe("input admission", () => {
  it("returns the first receipt again for the same id and the same body, even with keys reordered", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    const first = admitInput(db, {
      session: "s",
      id: "i1",
      kind: "message",
      intent: { kind: "message", text: "hi", images: [] },
      clientId: "client-a",
      acceptedAt: t0,
    });
    const again = admitInput(db, {
      session: "s",
      id: "i1",
      kind: "message",
      intent: { images: [], text: "hi", kind: "message" },
      clientId: "client-b",
      acceptedAt: t0 + 5000,
    });
    expect(first.created).toBe(true);
    expect(again.created).toBe(false);
    expect(again.receipt).toEqual(first.receipt);
    expect(again.receipt.client_id).toBe("client-a");
    expect(getSession(db, "s")?.inputOrder).toBe(1);
  });

  it("rejects the same id with a different body as a conflict", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    admitInput(db, message("s", "i1", "hi"));
    const conflict = (() => {
      try {
        admitInput(db, message("s", "i1", "bye"));
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(conflict).toBeInstanceOf(InputConflictError);
    expect((conflict as InputConflictError).reason).toBe("other_intent");
    expect(() => admitInput(db, { ...message("s", "i1", "hi"), kind: "continue" })).toThrow(
      InputConflictError,
    );
    expect(listPendingInputs(db, "s")).toHaveLength(1);
  });

  it("rejects an id already used by another session's input", () => {
    const { db } = tempDatabase();
    addSession(db, "a");
    addSession(db, "b");
    admitInput(db, message("a", "i1", "hi"));
    expect(() => admitInput(db, message("b", "i1", "hi"))).toThrow(
      expect.objectContaining({ name: "InputConflictError", reason: "other_session" }),
    );
    expect(getSession(db, "b")?.inputOrder).toBe(0);
  });

  it("refuses an input for a session that does not exist and writes nothing", () => {
    const { db } = tempDatabase();
    expect(() => admitInput(db, message("ghost", "i1", "hi"))).toThrow(SessionNotFoundError);
    expect(db.prepare("SELECT count(*) AS n FROM inputs").get()).toEqual({ n: 0 });
  });

  it("gives each session its own gapless FIFO acceptance order, starting at 1", () => {
    const { db } = tempDatabase();
    addSession(db, "a");
    addSession(db, "b");
    const orders = ["a1", "b1", "a2", "a3", "b2"].map(
      (id) => admitInput(db, message(id[0]!, id, id)).receipt.acceptance_order,
    );
    expect(orders).toEqual([1, 1, 2, 3, 2]);
    expect(listPendingInputs(db, "a").map((row) => row.id)).toEqual(["a1", "a2", "a3"]);
    expect(getSession(db, "a")?.inputOrder).toBe(3);
  });

  it(`accepts ${defaultQueueLimit} waiting inputs, refuses one more, and still answers a retry of a queued one`, () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    for (let i = 1; i <= defaultQueueLimit; i++) admitInput(db, message("s", `i${i}`, `n${i}`));
    expect(() => admitInput(db, message("s", "overflow", "x"))).toThrow(QueueFullError);
    expect(getSession(db, "s")?.inputOrder).toBe(defaultQueueLimit);

    const retry = admitInput(db, message("s", "i7", "n7"));
    expect(retry).toMatchObject({ created: false, receipt: { acceptance_order: 7 } });

    // A delivered input leaves the queue, making room for one more.
    startTurn(db, { id: "t1", session: "s", inputIds: ["i1"], startedAt: t0 });
    markInputsCommitted(db, "t1", [{ id: "i1", transcriptPosition: 1 }]);
    expect(admitInput(db, message("s", "overflow", "x")).receipt.acceptance_order).toBe(
      defaultQueueLimit + 1,
    );
  });

  it("honours a smaller queue limit when asked", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    admitInput(db, message("s", "i1", "a"), { queueLimit: 1 });
    expect(() => admitInput(db, message("s", "i2", "b"), { queueLimit: 1 })).toThrow(QueueFullError);
  });
});

describe("input receipts", () => {
  it("shows a pending input with its acceptance time in RFC 3339 milliseconds and no turn", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    const { receipt } = admitInput(db, {
      ...message("s", "i1", "hi"),
      clientId: "c",
      sentBy: "phone",
      sentFrom: "203.0.113.7",
    });
    expect(receipt).toEqual({
      id: "i1",
      session_id: "s",
      kind: "message",
      admission: "accepted",
      accepted_at: "2025-01-02T03:04:05.678Z",
      acceptance_order: 1,
      delivery: "pending",
      transcript_position: null,
      turn: null,
      client_id: "c",
      sent_by: "phone",
      sent_from: "203.0.113.7",
    });
    expect(getReceipt(db, "s", "i1")).toEqual(receipt);
    expect(Object.keys(receipt)).toEqual([
      "id",
      "session_id",
      "kind",
      "admission",
      "accepted_at",
      "acceptance_order",
      "delivery",
      "transcript_position",
      "turn",
      "client_id",
      "sent_by",
      "sent_from",
    ]);
  });

  it("shows a committed input with its transcript position and its turn, running then ended", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    admitInput(db, message("s", "i1", "hi"));
    admitInput(db, message("s", "i2", "there"));
    db.transaction(() => {
      startTurn(db, { id: "t1", session: "s", inputIds: ["i1", "i2"], startedAt: t0 + 1 });
      markInputsCommitted(db, "t1", [
        { id: "i1", transcriptPosition: 1 },
        { id: "i2", transcriptPosition: 2 },
      ]);
    })();
    expect(getReceipt(db, "s", "i2")).toMatchObject({
      delivery: "committed",
      transcript_position: 2,
      turn: { id: "t1", state: "running", started_at: "2025-01-02T03:04:05.679Z", ended_at: null },
    });
    endTurn(db, "t1", { state: "interrupted", endedAt: t0 + 2 });
    expect(getReceipt(db, "s", "i1")?.turn).toEqual({
      id: "t1",
      state: "interrupted",
      started_at: "2025-01-02T03:04:05.679Z",
      ended_at: "2025-01-02T03:04:05.680Z",
    });
    expect(listPendingInputs(db, "s")).toEqual([]);
  });

  it("has no receipt for an unknown input or for another session's input", () => {
    const { db } = tempDatabase();
    addSession(db, "a");
    addSession(db, "b");
    admitInput(db, message("a", "i1", "hi"));
    expect(getReceipt(db, "a", "nope")).toBeNull();
    expect(getReceipt(db, "b", "i1")).toBeNull();
  });

  it("lists a pending input in the snapshot's pending_inputs shape", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    admitInput(db, message("s", "i1", "hi"));
    expect(listPendingInputs(db, "s").map(pendingInputJson)).toEqual([
      {
        id: "i1",
        kind: "message",
        accepted_at: "2025-01-02T03:04:05.678Z",
        acceptance_order: 1,
        delivery: "pending",
      },
    ]);
    expect(listPendingInputs(db, "s")[0]?.intent).toEqual({ kind: "message", text: "hi" });
  });
});

describe("committing and cancelling inputs", () => {
  it("commits nothing when one of the inputs is no longer pending, and rolls back the caller's transaction", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    admitInput(db, message("s", "i1", "a"));
    admitInput(db, message("s", "i2", "b"));
    cancelInput(db, "s", "i2");
    expect(() =>
      db.transaction(() => {
        startTurn(db, { id: "t1", session: "s", inputIds: ["i1", "i2"], startedAt: t0 });
        markInputsCommitted(db, "t1", [
          { id: "i1", transcriptPosition: 1 },
          { id: "i2", transcriptPosition: 2 },
        ]);
      })(),
    ).toThrow(InputNotPendingError);
    expect(getReceipt(db, "s", "i1")?.delivery).toBe("pending");
    expect(db.prepare("SELECT count(*) AS n FROM turns").get()).toEqual({ n: 0 });
  });

  it("cancels the waiting inputs up to an acceptance order and reports their ids in order", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    addSession(db, "other");
    for (const id of ["i1", "i2", "i3", "i4"]) admitInput(db, message("s", id, id));
    admitInput(db, message("other", "o1", "o1"));
    startTurn(db, { id: "t1", session: "s", inputIds: ["i1"], startedAt: t0 });
    markInputsCommitted(db, "t1", [{ id: "i1", transcriptPosition: 1 }]);

    expect(cancelInputsThrough(db, "s", 3)).toEqual(["i2", "i3"]);
    expect(cancelInputsThrough(db, "s", 3)).toEqual([]);
    expect(listPendingInputs(db, "s").map((row) => row.id)).toEqual(["i4"]);
    expect(getReceipt(db, "s", "i1")?.delivery).toBe("committed");
    expect(getReceipt(db, "s", "i3")?.delivery).toBe("cancelled");
    expect(listPendingInputs(db, "other").map((row) => row.id)).toEqual(["o1"]);
    expect(cancelInputsThrough(db, "s", 0)).toEqual([]);
  });

  it("cancels one waiting input, and says not_pending once it is cancelled or committed", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    admitInput(db, message("s", "i1", "a"));
    admitInput(db, message("s", "i2", "b"));
    startTurn(db, { id: "t1", session: "s", inputIds: ["i1"], startedAt: t0 });
    markInputsCommitted(db, "t1", [{ id: "i1", transcriptPosition: 1 }]);
    expect(cancelInput(db, "s", "i2")).toBe("cancelled");
    expect(cancelInput(db, "s", "i2")).toBe("not_pending");
    expect(cancelInput(db, "s", "i1")).toBe("not_pending");
    expect(() => cancelInput(db, "s", "nope")).toThrow(InputUnknownError);
  });

  it("does not cancel another session's input through a wrong session id", () => {
    const { db } = tempDatabase();
    addSession(db, "a");
    addSession(db, "b");
    admitInput(db, message("a", "i1", "a"));
    expect(() => cancelInput(db, "b", "i1")).toThrow(InputUnknownError);
    expect(getReceipt(db, "a", "i1")?.delivery).toBe("pending");
  });

  it("keeps queued inputs, their order and cancellations across a reopen of the file", () => {
    const { db, path } = tempDatabase();
    addSession(db, "s");
    for (const id of ["i1", "i2", "i3"]) admitInput(db, message("s", id, id));
    cancelInput(db, "s", "i2");
    db.close();
    const reopened = openDaemonDatabase(path);
    try {
      expect(listPendingInputs(reopened, "s").map((row) => [row.id, row.acceptanceOrder])).toEqual([
        ["i1", 1],
        ["i3", 3],
      ]);
      expect(getReceipt(reopened, "s", "i2")?.delivery).toBe("cancelled");
      expect(admitInput(reopened, message("s", "i4", "i4")).receipt.acceptance_order).toBe(4);
    } finally {
      reopened.close();
    }
  });
});
