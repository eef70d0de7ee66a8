/**
 * A node's one wake-up connection on the real PostgreSQL: every channel its parts subscribe to
 * is LISTENed on over that one connection, a notification reaches its own channel's subscribers
 * only, and after its backend is terminated it comes back, wakes every subscriber once with ""
 * (what was sent meanwhile is lost) and carries notifications again. The channels are this
 * test's own: NOTIFY reaches the whole database, which other suites share.
 */
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WakeUpConnection, wakeUpApplicationName } from "../../../src/daemon/cluster/wake-up-connection.js";
import { eventually } from "../../support/eventually.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { wakeUpsOn } from "./wake-ups-on.js";

/** Records what the connection warns of. */
function warningsLogger(warnings: string[]) {
  return { info: () => {}, warn: (_: object, message: string) => warnings.push(message), error: () => {} };
}

let schema: PgSchema;
let wakeUps: WakeUpConnection | null = null;

beforeEach(async () => {
  schema = await createPgSchema("skein_wake_up_conn");
});

afterEach(async () => {
  await wakeUps?.stop();
  wakeUps = null;
  await schema.drop();
});

/** Four channels of this test, one of them a name that only a quoted identifier keeps intact. */
function channels(): string[] {
  return ["cluster", "config", "task", 'Sched "ules"'].map((name) => `${schema.name}_${name}`);
}

/** The application name this test's connection connects with. */
function named(): string {
  return `${schema.name}_wakeups`;
}

/** The backend pids of the test's wake-up connection. */
async function listeners(): Promise<number[]> {
  const rows = await schema.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %'",
    [named()],
  );
  return rows.map((row) => row.pid);
}

/** NOTIFY `channel` with `payload` from another connection. */
async function notify(channel: string, payload: string): Promise<void> {
  await schema.query("SELECT pg_notify($1, $2)", [channel, payload]);
}

/** What each channel's subscriber heard, subscribed to `wakeUps`. */
async function subscribeAll(wakeUps: WakeUpConnection, names: string[]): Promise<Map<string, string[]>> {
  const heard = new Map<string, string[]>();
  for (const channel of names) {
    const payloads: string[] = [];
    heard.set(channel, payloads);
    await wakeUps.subscribe(channel, (payload) => payloads.push(payload));
  }
  return heard;
}

/** Each channel's notification sent with the channel's name as payload, then every one of them arrived. */
async function notifyEach(heard: Map<string, string[]>, names: string[]): Promise<void> {
  for (const channel of names) await notify(channel, channel);
  await eventually("every notification to arrive", () =>
    names.every((channel) => heard.get(channel)!.includes(channel)) ? true : undefined,
  );
}

describe("a node's wake-up connection", () => {
  it("LISTENs on every channel over one connection and hands a notification to its own channel's subscriber only", async () => {
    const names = channels();
    const unstarted = new WakeUpConnection(
      { connectionString: `${schema.url}&application_name=${named()}` },
      warningsLogger([]),
    );
    wakeUps = unstarted;
    // Two subscribe before the connection opens, two after: all four are LISTENed on.
    const before = await subscribeAll(unstarted, names.slice(0, 2));
    await unstarted.start();
    const after = await subscribeAll(unstarted, names.slice(2));
    const heard = new Map([...before, ...after]);
    expect(await listeners()).toHaveLength(1);
    await notifyEach(heard, names);
    for (const channel of names) expect(heard.get(channel)).toEqual([channel]);
  });

  it("hears nothing more on a channel once its subscriber unsubscribed", async () => {
    wakeUps = await wakeUpsOn(schema.url);
    const [gone, kept] = channels() as [string, string];
    const heardGone: string[] = [];
    const heardKept: string[] = [];
    const subscription = await wakeUps.subscribe(gone, (payload) => heardGone.push(payload));
    await wakeUps.subscribe(kept, (payload) => heardKept.push(payload));
    subscription.unsubscribe();
    await notify(gone, "late");
    await notify(kept, "after");
    await eventually("the kept channel's notification", () =>
      heardKept.includes("after") ? true : undefined,
    );
    expect(heardGone).toEqual([]);
  });

  it(`shows as ${wakeUpApplicationName} in pg_stat_activity when the URL names no application`, async () => {
    wakeUps = await wakeUpsOn(schema.url);
    const [channel] = channels() as [string];
    await wakeUps.subscribe(channel, () => {});
    const rows = await schema.query<{ application_name: string }>(
      "SELECT application_name FROM pg_stat_activity WHERE query = $1",
      [`LISTEN ${pg.escapeIdentifier(channel)}`],
    );
    expect(rows).toEqual([{ application_name: wakeUpApplicationName }]);
  });

  it("wakes every subscriber once when its terminated connection is back, warns once, and carries notifications again", async () => {
    const warnings: string[] = [];
    wakeUps = await wakeUpsOn(`${schema.url}&application_name=${named()}`, warningsLogger(warnings));
    const names = channels();
    const heard = await subscribeAll(wakeUps, names);
    const [first] = await listeners();
    await schema.query("SELECT pg_terminate_backend($1)", [first]);
    await eventually("every subscriber to be woken", () =>
      names.every((channel) => heard.get(channel)!.includes("")) ? true : undefined,
    );
    const [second] = await listeners();
    expect(second).not.toBe(first);
    for (const channel of names) expect(heard.get(channel)).toEqual([""]);
    expect(warnings).toEqual(["cluster wake-up connection lost; polling until it is back"]);
    await notifyEach(heard, names);
    for (const channel of names) expect(heard.get(channel)).toEqual(["", channel]);
  });

  it("LISTENs on a channel subscribed while its connection is lost once the connection is back", async () => {
    const warnings: string[] = [];
    wakeUps = await wakeUpsOn(`${schema.url}&application_name=${named()}`, warningsLogger(warnings));
    const [listened, channel] = channels() as [string, string];
    await wakeUps.subscribe(listened, () => {});
    const [first] = await listeners();
    await schema.query("SELECT pg_terminate_backend($1)", [first]);
    await eventually("the loss to be noticed", () => (warnings.length > 0 ? true : undefined));
    const heard: string[] = [];
    await wakeUps.subscribe(channel, (payload) => heard.push(payload));
    await eventually("the connection to listen again", async () => {
      const pids = await listeners();
      return pids.length === 1 && pids[0] !== first ? true : undefined;
    });
    await notify(channel, "after");
    await eventually("the notification", () => (heard.includes("after") ? true : undefined));
  });
});
