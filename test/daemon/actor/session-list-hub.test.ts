import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import type { StreamCursor } from "../../../src/api/stream-cursor.js";
import { SessionListHub } from "../../../src/daemon/actor/session-list-hub.js";
import { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import type { SessionFeed } from "../../../src/daemon/stream/session-feed.js";
import { createTestSession, type TestServices, testServices } from "../session/session-services.js";

describe("SessionListHub", () => {
  let env: TestServices | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  /** A hub over a real registry's sessions, and a way to create one. */
  function setup(graceMs = 60_000) {
    env = testServices(() => null);
    const registry = new SessionRegistry(env.services);
    const hub = new SessionListHub(
      { list: (filter) => registry.list(filter), summary: (id) => registry.summaryOf(id) },
      { graceMs },
    );
    const workspace = env.workspace;
    const create = () => createTestSession(registry, workspace);
    return { hub, create };
  }

  function eventsAfter(feed: SessionFeed, after: StreamCursor) {
    const read = feed.read(after);
    if (read.kind !== "events") throw new Error(`expected events, got a ${read.reason} reset`);
    return read.events.map(
      (event) => JSON.parse(event.json) as { type: string; data: Record<string, unknown> },
    );
  }

  it("publishes a burst of changes to one session as one update with the summary as it is then", async () => {
    const { hub, create } = setup();
    const id = await create();
    const opened = await hub.open({ kind: "all" }, null);
    const start = { generation: opened.feed.generation, sequence: opened.first.cursor };
    hub.changed(id);
    hub.changed(id);
    hub.changed(id);
    expect(eventsAfter(opened.feed, start)).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    const events = eventsAfter(opened.feed, start);
    expect(events.map((event) => event.type)).toEqual(["updated"]);
    expect(events[0]!.data.session).toMatchObject({ id });
    opened.closed();
  });

  it("sends a filtered feed only the sessions its filter selects", async () => {
    const { hub, create } = setup();
    const parent = await create();
    const children = await hub.open({ kind: "children", parentId: parent }, null);
    const top = await hub.open({ kind: "top" }, null);
    hub.statusChanged(
      { id: "fork", parentId: parent },
      { phase: "running", run_id: "r", interrupt_requested: false, blocking_reason: null },
    );
    hub.deleted({ id: "plain", parentId: null });
    const from = (feed: SessionFeed, cursor: number) =>
      eventsAfter(feed, { generation: feed.generation, sequence: cursor });
    expect(from(children.feed, children.first.cursor).map((event) => event.data.id)).toEqual(["fork"]);
    expect(from(top.feed, top.first.cursor).map((event) => event.data.id)).toEqual(["plain"]);
    children.closed();
    top.closed();
  });

  it("keeps an unwatched feed for the grace period, so a reconnect resumes, then drops it", async () => {
    // A grace period a loaded machine's session creation (a commit) stays well inside.
    const { hub, create } = setup(500);
    const opened = await hub.open({ kind: "all" }, null);
    const cursor = { generation: opened.feed.generation, sequence: opened.first.cursor };
    opened.closed();
    const id = await create();
    await hub.created(id);
    const resumed = await hub.open({ kind: "all" }, cursor);
    expect(resumed.first.reset).toBeUndefined();
    expect(resumed.first.events.map((event) => JSON.parse(event.json).type)).toEqual(["created"]);
    resumed.closed();
    await sleep(1_000);
    expect(hub.feedCount).toBe(0);
    expect(opened.feed.closed).toBe(true);
    const after = await hub.open({ kind: "all" }, cursor);
    expect(after.first.reset?.reason).toBe("generation_changed");
    const snapshot = after.first.reset?.snapshot as { items: { id: string }[] } | undefined;
    expect(snapshot?.items.map((item) => item.id)).toEqual([id]);
    after.closed();
    hub.close();
  });
});
