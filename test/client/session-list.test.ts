/**
 * The typed client's session list: filtered listings and `followSessionList`, which follows the
 * list's stream across a daemon crash (re-reading daemon.json) and starts over from a fresh list.
 * A real daemon child process, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonClient, type SessionListBatch, type SessionListItem, uuidV7 } from "../../src/client/index.js";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";

describe("DaemonClient and the session list", () => {
  let app: DaemonHarness;
  let client: DaemonClient;

  beforeAll(async () => {
    app = await DaemonHarness.start();
    client = DaemonClient.forHome(app.home);
  });

  afterAll(async () => {
    client?.close();
    await app?.close();
  });

  /** The next batch of a follower, skipping connection news (recorded in `news`). */
  async function nextBatch(
    follower: AsyncGenerator<SessionListItem, void, undefined>,
    news: string[] = [],
  ): Promise<SessionListBatch> {
    for (;;) {
      const step = await follower.next();
      if (step.done === true) throw new Error("the follower ended");
      if (step.value.kind === "batch") return step.value.batch;
      news.push(step.value.kind);
    }
  }

  it("lists with a scope or a parent, and follows the list across a daemon crash", async () => {
    const root = await client.createSession(uuidV7(), { workspace: app.workspace });
    const abort = new AbortController();
    const follower = client.followSessionList({ scope: "top", signal: abort.signal });
    const first = await nextBatch(follower);
    expect(first.reset?.reason).toBe("initial");
    expect(first.reset?.snapshot.items.map((item) => item.id)).toEqual([root.id]);

    const second = await client.createSession(uuidV7(), { workspace: app.workspace });
    let created: SessionListBatch;
    do created = await nextBatch(follower);
    while (!created.events.some((event) => event.type === "created"));
    expect(created.events.find((event) => event.type === "created")?.data).toMatchObject({
      session: { id: second.id, creation: { kind: "new" } },
    });

    expect((await client.listSessions({ scope: "top" })).map((item) => item.id)).toEqual([
      second.id,
      root.id,
    ]);
    expect(await client.listSessions({ parent_id: root.id })).toEqual([]);

    await app.kill();
    await app.boot();
    const news: string[] = [];
    const after = await nextBatch(follower, news);
    expect(news).toEqual(["disconnected", "reconnected"]);
    expect(after.reset?.reason).toBe("generation_changed");
    expect(after.reset?.snapshot.items.map((item) => item.id)).toEqual([second.id, root.id]);
    abort.abort();
    await follower.return();
  });
});
