/**
 * The client's wire types are written from the contract, not imported from the daemon (a
 * program using `skein/client` depends on the API only). This file keeps the two from drifting:
 * it compiles only while every answer the daemon builds is assignable to the type the client
 * reads it as, so `npm test`'s type check fails on a mismatch.
 */
import { describe, expect, it } from "vitest";
import type * as Client from "../../../src/cli/client/api-types.js";
import type { HistoryEntry } from "../../../src/daemon/history/history-entry.js";
import type { HistoryPage } from "../../../src/daemon/history/history-page.js";
import type { CancelResult, InterruptResult } from "../../../src/daemon/session/session-actor.js";
import type { SessionEventData } from "../../../src/daemon/session/session-events.js";
import type {
  SessionListEventData,
  SessionListSnapshot,
} from "../../../src/daemon/session/session-list-hub.js";
import type { SessionSnapshot, SessionSummary } from "../../../src/daemon/session/session-snapshot.js";
import type { VerifyReport } from "../../../src/daemon/session/verify-report.js";
import type { InputReceipt } from "../../../src/daemon/storage/inputs-table.js";

/** Compiles only when `Daemon` values can be read as `ClientView`. */
type Readable<Daemon, ClientView> = [Daemon] extends [ClientView] ? true : never;

const contract: {
  summary: Readable<SessionSummary, Client.SessionSummary>;
  snapshot: Readable<SessionSnapshot, Client.SessionSnapshot>;
  entry: Readable<HistoryEntry, Client.HistoryEntry>;
  page: Readable<HistoryPage, Client.HistoryPage>;
  receipt: Readable<InputReceipt, Client.InputReceipt>;
  interrupt: Readable<InterruptResult, Client.InterruptAnswer>;
  cancel: Readable<CancelResult, Client.CancelAnswer>;
  verify: Readable<VerifyReport, Client.VerifyReport>;
  events: { [K in keyof SessionEventData]: Readable<SessionEventData[K], Client.StreamEventData[K]> };
  eventTypes: Readable<keyof Client.StreamEventData, keyof SessionEventData>;
  listEvents: {
    [K in keyof SessionListEventData]: Readable<SessionListEventData[K], Client.SessionListEventData[K]>;
  };
  listEventTypes: Readable<keyof Client.SessionListEventData, keyof SessionListEventData>;
  listSnapshot: Readable<SessionListSnapshot, NonNullable<Client.SessionListBatch["reset"]>["snapshot"]>;
} = {
  summary: true,
  snapshot: true,
  entry: true,
  page: true,
  receipt: true,
  interrupt: true,
  cancel: true,
  verify: true,
  events: {
    status: true,
    input: true,
    text: true,
    thinking: true,
    message: true,
    tool: true,
    retry: true,
    usage: true,
    committed: true,
    turn_completed: true,
    error: true,
  },
  eventTypes: true,
  listEvents: { created: true, updated: true, status: true, deleted: true },
  listEventTypes: true,
  listSnapshot: true,
};

describe("the client's wire types", () => {
  it("accept every answer shape the daemon builds (checked by the type checker)", () => {
    const { events, listEvents, ...answers } = contract;
    const all = [...Object.values(answers), ...Object.values(events), ...Object.values(listEvents)];
    expect(all.every((readable) => readable)).toBe(true);
  });
});
