import { describe, expect, it } from "vitest";
import { TurnStateError } from "../../../src/daemon/errors.js";
import { openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import {
  endTurn,
  getTurn,
  runningTurnOf,
  runningTurns,
  startTurn,
} from "../../../src/daemon/storage/turns-table.js";
import { addSession, tempDatabase } from "./temp-database.js";

describe("the turns table", () => {
  it("records a running turn with its inputs and ends it once", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    const started = startTurn(db, { id: "t1", session: "s", inputIds: ["i1", "i2"], startedAt: 10 });
    expect(started).toEqual({
      id: "t1",
      session: "s",
      state: "running",
      startedAt: 10,
      endedAt: null,
      inputIds: ["i1", "i2"],
      error: null,
      interruptRequestedAt: null,
    });
    const ended = endTurn(db, "t1", { state: "failed", endedAt: 20, error: "provider down" });
    expect(ended).toMatchObject({ state: "failed", endedAt: 20, error: "provider down" });
    expect(getTurn(db, "t1")).toEqual(ended);
    expect(() => endTurn(db, "t1", { state: "completed", endedAt: 30 })).toThrow(TurnStateError);
    expect(() => endTurn(db, "nope", { state: "completed", endedAt: 30 })).toThrow(TurnStateError);
  });

  it("allows one running turn per session", () => {
    const { db } = tempDatabase();
    addSession(db, "s");
    startTurn(db, { id: "t1", session: "s", inputIds: [], startedAt: 1 });
    expect(() => startTurn(db, { id: "t2", session: "s", inputIds: [], startedAt: 2 })).toThrow(
      TurnStateError,
    );
    endTurn(db, "t1", { state: "completed", endedAt: 3 });
    expect(startTurn(db, { id: "t2", session: "s", inputIds: [], startedAt: 4 }).state).toBe("running");
    expect(() => startTurn(db, { id: "t2", session: "s", inputIds: [], startedAt: 5 })).toThrow(
      TurnStateError,
    );
  });

  it("finds the turns a crash left running, across sessions, after a reopen", () => {
    const { db, path } = tempDatabase();
    addSession(db, "a");
    addSession(db, "b");
    addSession(db, "c");
    startTurn(db, { id: "ta", session: "a", inputIds: ["x"], startedAt: 2 });
    startTurn(db, { id: "tb", session: "b", inputIds: [], startedAt: 1 });
    startTurn(db, { id: "tc", session: "c", inputIds: [], startedAt: 3 });
    endTurn(db, "tc", { state: "completed", endedAt: 4 });
    db.close();
    const reopened = openDaemonDatabase(path);
    try {
      expect(runningTurns(reopened).map((turn) => turn.id)).toEqual(["tb", "ta"]);
      expect(runningTurnOf(reopened, "a")?.inputIds).toEqual(["x"]);
      expect(runningTurnOf(reopened, "c")).toBeNull();
      endTurn(reopened, "ta", { state: "abandoned", endedAt: 5 });
      expect(runningTurns(reopened).map((turn) => turn.id)).toEqual(["tb"]);
    } finally {
      reopened.close();
    }
  });

  it("refuses a turn for a session that does not exist", () => {
    const { db } = tempDatabase();
    expect(() => startTurn(db, { id: "t1", session: "ghost", inputIds: [], startedAt: 1 })).toThrow();
    expect(getTurn(db, "t1")).toBeNull();
  });
});
