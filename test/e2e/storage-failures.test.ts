/**
 * Storage that fails under a running daemon: a full disk (a real tmpfs filled to ENOSPC) while a
 * turn commits, while inputs arrive and while a session is deleted, a boot that fails after the
 * listener is up, and a log changed behind a loaded session's back. In every case the daemon
 * says what happened, changes nothing it cannot record, and carries on normally once the
 * storage is usable again.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { v7 as uuidv7 } from "uuid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { DaemonHarness, userTexts } from "./support/daemon-harness.js";
import { entryText, eventually, gate, profileFor, useFakeProvider } from "./support/fixture.js";
import { SmallDisk } from "./support/small-disk.js";
import { eventsOf } from "./support/sse-client.js";

// Room for a database whose write-ahead log grows to about 7 MB between checkpoints (60 turns of
// 6 KB do): the tests fill the rest when they mean to. At 8 MB the disk sometimes filled up before.
const disk = SmallDisk.mount(32 * 1024 * 1024);
const skipReason = typeof disk === "string" ? disk : null;

describe.skipIf(skipReason !== null)("a full disk under a running daemon", () => {
  let provider: FakeProvider;
  const started: DaemonHarness[] = [];

  beforeAll(async () => {
    provider = await FakeProvider.start();
  });

  afterEach(async () => {
    if (typeof disk !== "string") disk.free();
    for (const app of started.splice(0)) await app.close();
    // Each test's database starts on an empty disk: what an earlier test left (its database and
    // write-ahead log) made a later one's disk fill up before the test filled it.
    if (typeof disk !== "string") disk.clear();
  });

  afterAll(async () => {
    await provider?.close();
    if (typeof disk !== "string") disk.unmount();
  });

  async function daemonOnSmallDisk(): Promise<{ app: DaemonHarness; small: SmallDisk }> {
    if (typeof disk === "string") throw new Error(disk);
    provider.reset();
    provider.script = () => text("ok");
    const dbPath = join(disk.path, `${uuidv7()}.sqlite`);
    const app = await DaemonHarness.start({ providers: profileFor(provider), env: { SKEIN_DB: dbPath } });
    started.push(app);
    return { app, small: disk };
  }

  it("ends a turn whose commit fails for lack of space as failed, with an error event, and takes the next input once space is back", async () => {
    const { app, small } = await daemonOnSmallDisk();
    const sessionId = await app.createSession();
    await app.turn(sessionId, "warm up");

    const held = gate();
    provider.script = async () => {
      await held.promise;
      // Larger than the write-ahead log's file: once checkpointed, the log reuses its own space,
      // so only a commit that must grow it fails on a full disk.
      return text(`this answer cannot be stored ${"x".repeat(400_000)}`);
    };
    const stream = await app.openStream(sessionId, { tail: 0 });
    const inputId = uuidv7();
    await app.prompt(sessionId, "second", inputId);
    await eventually("the provider to be asked", () => (provider.requests.length >= 2 ? true : undefined));
    small.fill();
    held.open();

    const frames = await stream.readUntil((event) => event.type === "error");
    const error = eventsOf(frames).find((event) => event.type === "error");
    expect(error?.data).toMatchObject({ code: "storage_unavailable" });
    expect(String(error?.data.message)).toMatch(/could not be written|space/i);

    // While the disk is full, the session answers: its snapshot, 503 for new input, never 404.
    const snapshot = await app.api(`/sessions/${sessionId}?tail=0`);
    expect(snapshot.status).toBe(200);
    // (Large for the same reason as the answer: a small input would fit in the log's own space.)
    const refused = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: `while full ${"y".repeat(600_000)}` },
    });
    expect(refused.status).toBe(503);
    expect(refused.json()).toMatchObject({ code: "request_unavailable" });
    const listed = await app.api("/sessions");
    expect(listed.status).toBe(200);
    const blocked = { code: "storage_unavailable", detail: expect.any(String) };
    expect(snapshot.json<{ status: unknown }>().status).toMatchObject({ blocking_reason: blocked });
    // The end is retried after 250, 500 and 1000 ms: several attempts fail while the disk stays full.
    await new Promise((wait) => setTimeout(wait, 2_000));

    small.free();
    // The idle status follows the turn's end.
    const ended = await stream.readUntil((event) => event.type === "status" && event.data.phase === "idle");
    const completed = eventsOf(ended).find((event) => event.type === "turn_completed");
    expect(completed?.data).toMatchObject({ state: "failed" });
    stream.close();
    // Status events carry the blocking reason, as the snapshot's status does, and a retry that
    // fails again changes nothing, so it sends no status event again.
    const statuses = eventsOf([...frames, ...ended])
      .filter((event) => event.type === "status")
      .map((event) => event.data);
    expect(statuses.filter((status) => status.blocking_reason !== null)).toEqual([
      {
        phase: "running",
        run_id: completed?.data.run_id,
        interrupt_requested: false,
        blocking_reason: blocked,
      },
    ]);
    expect(statuses.at(-1)).toEqual({
      phase: "idle",
      run_id: null,
      interrupt_requested: false,
      blocking_reason: null,
    });

    const receipt = await app.receipt(sessionId, inputId);
    expect(receipt.delivery).toBe("committed");
    expect(receipt.turn?.state).toBe("failed");
    expect(receipt.turn?.ended_at).not.toBeNull();

    provider.script = () => text("back to normal");
    await app.turn(sessionId, "third");
    const history = await app.history(sessionId);
    expect(userTexts(history.items)).toEqual(["warm up", "second", "third"]);
    const answers = history.items.filter((entry) => entry.kind === "assistant").map(entryText);
    expect(answers).toEqual(["ok", "back to normal"]);
    const verified = await app.api(`/sessions/${sessionId}/history?limit=200`);
    expect(verified.status).toBe(200);
  });

  it("answers 503, never 404, for a live session while its writes fail, and admits the input once space is back", async () => {
    const { app, small } = await daemonOnSmallDisk();
    const sessionId = await app.createSession();
    await app.turn(sessionId, "one");
    small.fill();
    const inputId = uuidv7();
    // Larger than the write-ahead log's file: a small write may fit in the log's reused space
    // once a checkpoint has copied it back (whether it has depends on timing), a large one never.
    const text = `two ${"z".repeat(600_000)}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const put = await app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
        method: "PUT",
        body: { kind: "message", text },
      });
      expect(put.status).toBe(503);
      const get = await app.api(`/sessions/${sessionId}?tail=1`);
      expect([200, 503]).toContain(get.status);
    }
    const unknown = await app.api(`/sessions/${sessionId}/inputs/${inputId}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ code: "input_unknown" });

    small.free();
    await app.prompt(sessionId, text, inputId);
    await app.idle(sessionId);
    // (History shows a long text as its bounded preview.)
    const texts = userTexts((await app.history(sessionId)).items);
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe("one");
    expect(texts[1]).toMatch(/^two z{100}/);
  });
  it("deletes a session on a full disk all or nothing: 503 with the session whole, or gone for good", async () => {
    const { app, small } = await daemonOnSmallDisk();
    const kept = await app.createSession();
    await app.turn(kept, "a neighbour");
    const sessionId = await app.createSession();
    // Many entries on many pages: their deletion may write more to the write-ahead log than the
    // space a checkpoint leaves in it (then it fails), or fit in that space (then it succeeds).
    provider.script = () => text(`answer ${"w".repeat(3_000)}`);
    for (let i = 0; i < 60; i++) await app.turn(sessionId, `turn ${i} ${"v".repeat(3_000)}`);
    const before = await app.history(sessionId);
    small.fill();

    const first = await app.api(`/sessions/${sessionId}`, { method: "DELETE" });
    expect([200, 503]).toContain(first.status);
    if (first.status === 503) {
      expect(first.json()).toMatchObject({ code: "request_unavailable" });
      // Nothing of it went: the session answers as before, its history whole and verified.
      expect((await app.api(`/sessions/${sessionId}?tail=0`)).status).toBe(200);
      expect(await app.history(sessionId)).toEqual(before);
      small.free();
      expect((await app.api(`/sessions/${sessionId}`, { method: "DELETE" })).status).toBe(200);
    } else {
      small.free();
    }
    // Gone, and still gone after a crash: no row, no entry of it is read back.
    for (let round = 0; round < 2; round++) {
      expect((await app.api(`/sessions/${sessionId}?tail=0`)).status).toBe(404);
      expect((await app.api(`/sessions/${sessionId}/history?limit=10`)).status).toBe(404);
      if (round === 0) {
        await app.kill();
        await app.boot();
      }
    }
    // Its neighbour is untouched and takes turns.
    provider.script = () => text("still here");
    await app.turn(kept, "after");
    expect(userTexts((await app.history(kept)).items)).toEqual(["a neighbour", "after"]);
  }, 60_000);
});

describe("boot failures and a log changed behind the daemon's back", () => {
  const fake = useFakeProvider();

  it("exits non-zero and releases its home when boot fails after the listener is up", async () => {
    const app = await fake.daemon();
    await app.shutdown();
    // daemon.json cannot be written: a directory (with something in it) stands in its place.
    mkdirSync(join(app.home, "daemon.json"));
    writeFileSync(join(app.home, "daemon.json", "keep"), "");
    const failed = await app.runAnotherDaemon(15_000);
    expect(failed.code).toBe(1);
    expect(failed.output).toMatch(/daemon\.json/);

    // The home lock was released: a daemon starts once the obstacle is gone.
    const { rmSync } = await import("node:fs");
    rmSync(join(app.home, "daemon.json"), { recursive: true });
    await app.boot();
    expect((await app.api("/server")).json()).toMatchObject({ state: "ready" });
  });

  it("refuses input with log_corrupt once a loaded session's log no longer verifies, and appends nothing", async () => {
    const app = await fake.daemon();
    const sessionId = await app.createSession();
    await app.turn(sessionId, "one");
    await app.turn(sessionId, "two");

    // Another process edits an old entry's text in place (the actor stays loaded).
    const db = new Database(app.dbPath);
    const before = db.prepare("SELECT count(*) AS n FROM transcript WHERE session = ?").get(sessionId) as {
      n: number;
    };
    db.prepare(
      "UPDATE transcript SET entry = replace(entry, '\"one\"', '\"uno\"') WHERE session = ? AND position = 1",
    ).run(sessionId);
    db.close();

    const history = await app.api(`/sessions/${sessionId}/history?limit=200`);
    expect(history.status).toBe(500);
    expect(history.json()).toMatchObject({ code: "log_corrupt" });

    const put = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: "three" },
    });
    expect(put.status).toBe(500);
    expect(put.json()).toMatchObject({ code: "log_corrupt" });

    const check = new Database(app.dbPath, { readonly: true });
    const after = check.prepare("SELECT count(*) AS n FROM transcript WHERE session = ?").get(sessionId) as {
      n: number;
    };
    check.close();
    expect(after.n).toBe(before.n);
    expect(fake.provider.requests).toHaveLength(2);
  });

  it("checks the log before admitting input even when nothing read it since it changed", async () => {
    const app = await fake.daemon();
    const sessionId = await app.createSession();
    await app.turn(sessionId, "one");

    // The tail of the log is cut back behind the loaded actor.
    const db = new Database(app.dbPath);
    db.prepare(
      "DELETE FROM transcript WHERE session = ? AND position = (SELECT max(position) FROM transcript WHERE session = ?)",
    ).run(sessionId, sessionId);
    db.close();

    const put = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: "two" },
    });
    expect(put.status).toBe(500);
    expect(put.json()).toMatchObject({ code: "log_corrupt" });
    expect(fake.provider.requests).toHaveLength(1);
  });
});
