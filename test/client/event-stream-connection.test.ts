/**
 * Which connection a client's event stream rides: the idle kept-alive connection its previous
 * request left (so the daemon accepts no second connection for `skein run`'s attach), else one
 * of its own. A real daemon child process, real HTTP over loopback.
 */
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OpenedStream, openEventStream } from "../../src/client/http-exchange.js";
import { DaemonClient, uuidV7 } from "../../src/client/index.js";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";

/** The first chunk of an opened stream's body, as text; the stream is then cut. */
async function firstChunk(opened: OpenedStream): Promise<string> {
  opened.response.setEncoding("utf8");
  for await (const chunk of opened.response) {
    opened.request.destroy();
    return chunk as string;
  }
  throw new Error("the stream ended before its first frame");
}

describe("the connection of a client's event stream", () => {
  let app: DaemonHarness;

  beforeAll(async () => {
    app = await DaemonHarness.start();
  });

  afterAll(async () => {
    await app?.close();
  });

  it("rides the idle connection the client's previous request left", async () => {
    const client = DaemonClient.forHome(app.home);
    try {
      const created = await client.createSession(uuidV7(), { workspace: app.workspace });
      const requestSocket = Object.values(client.agents.http.freeSockets).flat()[0];
      expect(requestSocket).toBeDefined();

      const opened = await openEventStream(
        client.endpoint(),
        client.agents,
        `/sessions/${created.id}?tail=0`,
      );
      expect(opened.response.statusCode).toBe(200);
      expect(opened.request.reusedSocket).toBe(true);
      expect(opened.request.socket).toBe(requestSocket);
      // Out of the pool: it counts against no limit of the client's other requests.
      expect(Object.values(client.agents.http.sockets).flat()).not.toContain(requestSocket);
      expect(Object.values(client.agents.http.freeSockets).flat()).not.toContain(requestSocket);
      expect(await firstChunk(opened)).toContain('"reason":"initial"');
    } finally {
      client.close();
    }
  });

  it("leaves the pool with its connection: more open streams than the pool's limit hold up no request", async () => {
    const client = DaemonClient.forHome(app.home);
    const streams: OpenedStream[] = [];
    try {
      const created = await client.createSession(uuidV7(), { workspace: app.workspace });
      // Each stream takes the connection the request before it left (the pool holds 16).
      for (let i = 0; i < 20; i++) {
        await client.server(5_000);
        const opened = await openEventStream(
          client.endpoint(),
          client.agents,
          `/sessions/${created.id}?tail=0`,
        );
        expect(opened.request.reusedSocket).toBe(true);
        streams.push(opened);
      }
      expect((await client.server(5_000)).version).toEqual(expect.any(String));
    } finally {
      for (const opened of streams) opened.request.destroy();
      client.close();
    }
  });

  it("closes its connection when the daemon ends the stream, so no socket holds the process open", async () => {
    const client = DaemonClient.forHome(app.home);
    try {
      const created = await client.createSession(uuidV7(), { workspace: app.workspace });
      const opened = await openEventStream(
        client.endpoint(),
        client.agents,
        `/sessions/${created.id}?tail=0`,
      );
      const socket = opened.request.socket!;
      expect(opened.request.reusedSocket).toBe(true);
      const closed = once(socket, "close").then(() => "closed" as const);
      // Deleting the session ends its stream on the daemon's side.
      await client.deleteSession(created.id);
      opened.response.resume();
      await once(opened.response, "end");
      // Before, the connection stayed open (out of the pool, owned by nobody) until the
      // daemon's 10 s keep-alive timeout closed it: `skein run` lingered that long after a
      // failed turn whose session it removed.
      expect(await Promise.race([closed, sleep(3_000, "still open" as const)])).toBe("closed");
    } finally {
      client.close();
    }
  });

  it("opens a connection of its own when the client holds no idle one", async () => {
    const client = DaemonClient.forHome(app.home);
    try {
      const created = await client.createSession(uuidV7(), { workspace: app.workspace });
      const path = `/sessions/${created.id}?tail=0`;
      const first = await openEventStream(client.endpoint(), client.agents, path);
      // The first stream holds the only pooled connection: the second cannot wait for it.
      const second = await openEventStream(client.endpoint(), client.agents, path);
      expect(first.request.reusedSocket).toBe(true);
      expect(second.request.reusedSocket).toBe(false);
      expect(second.request.socket).not.toBe(first.request.socket);
      expect(await firstChunk(second)).toContain('"reason":"initial"');
      expect(await firstChunk(first)).toContain('"reason":"initial"');
    } finally {
      client.close();
    }
  });
});
