/** The entries that end a turn a restart cut short. */
import { describe, expect, it } from "vitest";
import { abandonedTurnEntries, restartNoteText } from "../../../src/daemon/session/turn-recovery.js";
import { toolCall, toolResult, userMessage } from "../../../src/model/items.js";

describe("abandonedTurnEntries", () => {
  it("closes the calls in flight with an unknown outcome, then adds the restart note", () => {
    const history = [userMessage("list"), toolCall("c1", "list_files", "{}")];
    const entries = abandonedTurnEntries("t1", 9, history);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      kind: "tool_results",
      ts: 9,
      turn_id: "t1",
      items: [{ call_id: "c1" }],
    });
    expect(entries[1]).toEqual({
      kind: "note",
      ts: 9,
      origin: "daemon_restart",
      item: userMessage(restartNoteText),
      turn_id: "t1",
    });
  });

  it("gives only the note when no call was in flight", () => {
    const history = [userMessage("list"), toolCall("c1", "list_files", "{}"), toolResult("c1", "a.txt")];
    expect(abandonedTurnEntries("t1", 9, history).map((entry) => entry.kind)).toEqual(["note"]);
  });
});
