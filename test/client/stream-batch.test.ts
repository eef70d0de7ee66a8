/** Decoding a session stream's frames: every event type of the contract reaches the client. */
import { describe, expect, it } from "vitest";
import { decodeBatch } from "../../src/client/stream-batch.js";

describe("decodeBatch", () => {
  it("keeps the compaction events, and drops a type the contract does not know", () => {
    const data = {
      run_id: null,
      trigger: "manual",
      before_tokens: 900,
      after_tokens: 300,
      first_kept_position: 4,
    };
    const batch = decodeBatch(
      JSON.stringify({
        generation: "g1",
        cursor: 3,
        events: [
          { type: "compaction_started", data },
          { type: "compaction_completed", data: { ...data, position: 9 } },
          { type: "compaction_failed", data: { run_id: null, trigger: "auto", message: "no" } },
          { type: "from_the_future", data: {} },
        ],
      }),
    );
    expect(batch.events.map((event) => event.type)).toEqual([
      "compaction_started",
      "compaction_completed",
      "compaction_failed",
    ]);
  });
});
