/**
 * The session collection as a UI reads it: filtered listings (all, top-level, one session's
 * forks) and the list's event stream — a snapshot, then created, status, updated and deleted
 * events, resumable from a cursor after a reconnect. One daemon for the file.
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { useSharedFixture } from "./support/fixture.js";
import { type SseConnection, type StreamEvent, StreamRefusedError } from "./support/sse-client.js";

interface Summary {
  id: string;
  parent_id: string | null;
  status: { phase: string };
  preview: { text: string };
  input_order: number;
}

describe("the session list", () => {
  const shared = useSharedFixture({ answer: "an answer" });

  async function ids(query: string): Promise<string[]> {
    const response = await shared.app.api(`/sessions${query}`);
    expect(response.status).toBe(200);
    return response.json<{ items: Summary[] }>().items.map((item) => item.id);
  }

  async function forkOf(source: string): Promise<string> {
    const checkpoint = (await shared.app.history(source)).items[0]!.checkpoint_id!;
    const id = uuidv7();
    const response = await shared.app.api(`/sessions/${id}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "fork", source_session_id: source, checkpoint_id: checkpoint },
    });
    expect(response.status).toBe(201);
    return id;
  }

  /** Events of the next frames until one matches `until`. */
  async function eventsUntil(stream: SseConnection, until: (event: StreamEvent) => boolean) {
    return (await stream.readUntil(until)).flatMap((frame) => frame.batch.events);
  }

  const about = (id: string) => (event: StreamEvent) =>
    (event.data.session as Summary | undefined)?.id === id || event.data.id === id;

  it("pages the listing with limit and next: every session once, in order; a bad page is a 400", async () => {
    for (let i = 0; i < 5; i++) await shared.app.createSession();
    const whole = await ids("?limit=1000");
    expect(whole.length).toBeGreaterThanOrEqual(5);
    const paged: string[] = [];
    let next: string | null = null;
    do {
      const query: string = next === null ? "?limit=2" : `?limit=2&next=${encodeURIComponent(next)}`;
      const response = await shared.app.api(`/sessions${query}`);
      expect(response.status).toBe(200);
      const page = response.json<{ items: Summary[]; next: string | null }>();
      expect(page.items.length).toBeLessThanOrEqual(2);
      paged.push(...page.items.map((item) => item.id));
      next = page.next;
    } while (next !== null);
    expect(paged).toEqual(whole);
    const first = (await shared.app.api("/sessions")).json<{ items: Summary[]; next: string | null }>();
    expect(first.items.length).toBe(Math.min(whole.length, 100));
    for (const query of ["?limit=0", "?limit=1001", "?next=nonsense", "?next=12.%2B%2B"]) {
      const refused = await shared.app.api(`/sessions${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.json<{ code: string }>().code).toBe("invalid_request");
    }
  });

  it("lists all sessions by default or with scope=all, the top-level ones with scope=top, a session's forks with parent_id", async () => {
    const root = await shared.app.createSession();
    await shared.app.turn(root, "root prompt");
    const child = await forkOf(root);
    await shared.app.turn(child, "child prompt");
    const grandchild = await forkOf(child);

    const all = await ids("");
    expect(all).toEqual(expect.arrayContaining([root, child, grandchild]));
    expect(await ids("?scope=all")).toEqual(all);
    const top = await ids("?scope=top");
    expect(top).toContain(root);
    expect(top).not.toContain(child);
    expect(top).not.toContain(grandchild);
    expect(await ids(`?parent_id=${root}`)).toEqual([child]);
    expect(await ids(`?parent_id=${child}`)).toEqual([grandchild]);
    expect(await ids(`?parent_id=${uuidv7()}`)).toEqual([]);

    for (const query of [
      `?scope=top&parent_id=${root}`,
      "?scope=mine",
      "?parent_id=not-an-id",
      "?after_seq=1",
    ]) {
      const response = await shared.app.api(`/sessions${query}`);
      expect(response.status, query).toBe(400);
      expect(response.json().code).toBe("invalid_request");
    }
  });

  it("streams the list: a snapshot, then created, status, updated and deleted events", async () => {
    const existing = await shared.app.createSession();
    const stream = await shared.app.openListStream();
    const first = await stream.next();
    expect(first.id).toBe(`${first.batch.generation}.${first.batch.cursor}`);
    expect(first.batch.events[0]).toEqual({ type: "reset", data: { reason: "initial" } });
    const snapshot = first.batch.snapshot as unknown as { items: Summary[] };
    expect(snapshot.items.map((item) => item.id)).toEqual(await ids(""));
    expect(snapshot.items.map((item) => item.id)).toContain(existing);

    const id = await shared.app.createSession();
    const created = await eventsUntil(stream, (event) => event.type === "created" && about(id)(event));
    expect(created.at(-1)?.data.session).toMatchObject({ id, parent_id: null, status: { phase: "idle" } });

    await shared.app.turn(id, "hello list");
    // The turn's last commit is followed by the idle status, then by the summary saying so.
    const settled = (event: StreamEvent) => {
      const session = event.data.session as Summary | undefined;
      return (
        event.type === "updated" &&
        session?.id === id &&
        session.status.phase === "idle" &&
        session.preview.text === "hello list"
      );
    };
    const mine = (await eventsUntil(stream, settled)).filter(about(id));
    const phases = mine
      .filter((event) => event.type === "status")
      .map((event) => (event.data.status as Summary["status"]).phase);
    expect(phases).toEqual(["running", "idle"]);
    const updates = mine
      .filter((event) => event.type === "updated")
      .map((event) => event.data.session as Summary);
    // An idle session admits the input and starts its turn in one commit: the first update
    // already shows the prompt.
    expect(updates[0]).toMatchObject({ input_order: 1, preview: { text: "hello list" } });
    expect(updates.at(-1)).toMatchObject({ input_order: 1, status: { phase: "idle" } });

    expect((await shared.app.api(`/sessions/${id}`, { method: "DELETE" })).status).toBe(200);
    const deleted = await eventsUntil(stream, (event) => event.type === "deleted" && about(id)(event));
    expect(deleted.at(-1)?.data).toEqual({ id, parent_id: null });
    stream.close();
  });

  it("resumes after a reconnect from the last cursor, and starts over with a fresh list when it cannot", async () => {
    const stream = await shared.app.openListStream();
    await stream.next();
    const cursor = stream.lastEventId!;
    stream.close();

    const missed = await shared.app.createSession();
    const resumed = await shared.app.openListStream("", { lastEventId: cursor });
    const replay = await eventsUntil(resumed, (event) => event.type === "created" && about(missed)(event));
    expect(replay.map((event) => event.type)).not.toContain("reset");
    expect(replay.every((event, i) => event.sequence === Number(cursor.split(".")[1]) + 1 + i)).toBe(true);
    resumed.close();

    const stale = await shared.app.openListStream("", { lastEventId: `${"A".repeat(22)}.3` });
    const fresh = await stale.next();
    expect(fresh.batch.events[0]).toEqual({ type: "reset", data: { reason: "generation_changed" } });
    const items = (fresh.batch.snapshot as unknown as { items: Summary[] }).items;
    expect(items.map((item) => item.id)).toContain(missed);
    stale.close();

    const malformed = await shared.app
      .openListStream("", { lastEventId: "nope" })
      .catch((error: unknown) => error);
    expect(malformed).toBeInstanceOf(StreamRefusedError);
    expect((malformed as StreamRefusedError).status).toBe(400);
  });

  it("streams only what its filter selects: a session's forks, or the top-level sessions", async () => {
    const root = await shared.app.createSession();
    await shared.app.turn(root, "root prompt");
    const children = await shared.app.openListStream(`parent_id=${root}`);
    const top = await shared.app.openListStream("scope=top");
    expect((await children.next()).batch.snapshot).toEqual({ items: [] });
    await top.next();

    const unrelated = await shared.app.createSession();
    const child = await forkOf(root);
    const seenByChildren = await eventsUntil(children, (event) => event.type === "created");
    expect(
      seenByChildren
        .filter((event) => event.type === "created")
        .map((event) => (event.data.session as Summary).id),
    ).toEqual([child]);
    const seenByTop = await eventsUntil(top, (event) => event.type === "created" && about(unrelated)(event));
    expect(seenByTop.some(about(child))).toBe(false);
    children.close();
    top.close();
  });
});
