/**
 * Receipts read many at once (a page of schedules names each one's last input): one read gives
 * each named input's receipt exactly as reading it alone does, in the order asked, and null for
 * an input its session does not have, on both backends.
 */
import { describe, expect, it } from "vitest";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { userMessage } from "../../../src/model/items.js";
import { storageBackends } from "./storage-backends.js";

const ts = Date.parse("2025-05-06T07:08:09.010Z");
const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };

async function admit(storage: SessionStorage, session: string, id: string): Promise<void> {
  await storage.admitInput({ session, id, kind: "message", intent: { text: id }, acceptedAt: ts });
}

/** Deliver the waiting input `id` of `session` in turn `turnId`. */
async function deliver(storage: SessionStorage, session: string, id: string, turnId: string): Promise<void> {
  const writer = storage.writerFrom(session, await storage.readLog(session));
  const entry: LogEntry = { kind: "user_input", ts, item: userMessage(id), turn_id: turnId, input_id: id };
  await writer.append([entry], {
    startTurn: { id: turnId, inputIds: [id], startedAt: ts },
    committedInputs: { turnId, inputs: [{ id, transcriptPosition: writer.position + 1 }] },
  });
}

describe.each(storageBackends("skein_receipts"))("receipts read at once on $name", (backend) => {
  it("answers each input's receipt as a single read does, in the order asked, null where the session lacks it", async () => {
    const storage = await backend.open();
    for (const id of ["a", "b"])
      await storage.createSession({ id, workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
    await admit(storage, "a", "a1");
    await deliver(storage, "a", "a1", "turn-a1");
    await admit(storage, "a", "a2");
    await admit(storage, "b", "b1");

    const refs = [
      { sessionId: "b", inputId: "b1" },
      { sessionId: "a", inputId: "a1" },
      { sessionId: "b", inputId: "a2" },
      { sessionId: "a", inputId: "missing" },
      { sessionId: "a", inputId: "a2" },
    ];
    const receipts = await storage.getReceipts(refs);
    const alone = await Promise.all(refs.map((ref) => storage.getReceipt(ref.sessionId, ref.inputId)));
    expect(receipts).toEqual(alone);
    expect(receipts.map((receipt) => receipt?.turn?.id ?? receipt?.delivery ?? null)).toEqual([
      "pending",
      "turn-a1",
      null,
      null,
      "pending",
    ]);
    expect(await storage.getReceipts([])).toEqual([]);
  });
});
