/**
 * A 3-node cluster on separate network addresses: each node and a private PostgreSQL server in
 * a Linux network namespace of its own (a veth pair to a bridge each; the test process joins as
 * the client machine), every node on port 7700 at its own address, relays and clients crossing
 * the namespaces. Partitions are nftables drops inside a node's namespace, each with the
 * documented outcome: a client's node cut from the owner answers 503 with Retry-After and its
 * relayed stream ends, the client resumes on another node; an owner cut from the other nodes
 * keeps its sessions and the others answer 503 with Retry-After until it is reachable again; an
 * owner cut from the database loses its sessions to another node after a lease, and what it
 * tries to commit after the partition heals is fenced.
 *
 * Needs root and network namespaces (CI runs as root); skipped, with the reason in its title,
 * where the kernel or the machine refuses them.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliver, text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { sleep, userTexts } from "./support/daemon-harness.js";
import { eventually } from "./support/fixture.js";
import { NetnsLab } from "./support/netns-lab.js";
import { TestCluster } from "./support/test-cluster.js";

const unavailable = NetnsLab.unavailable();
const leaseSeconds = 2;

describe.skipIf(unavailable !== null)(
  `a cluster on separate network addresses${unavailable === null ? "" : ` (skipped: ${unavailable})`}`,
  () => {
    let lab: NetnsLab;
    let provider: FakeProvider;
    let cluster: TestCluster;
    let n1: DaemonHarness;
    let n2: DaemonHarness;
    let n3: DaemonHarness;

    beforeAll(async () => {
      lab = await NetnsLab.create(["db", "n1", "n2", "n3"]);
      const databaseUrl = await lab.startPostgres("db");
      // The model provider is on the client machine: every node reaches it across the bridge.
      provider = await FakeProvider.start({ host: lab.clientAddress });
      cluster = new TestCluster(provider, databaseUrl);
      [n1, n2, n3] = (await cluster.start(3, leaseSeconds, (index) => {
        const host = lab.host(`n${index + 1}`);
        return {
          address: host.address,
          launcher: host.launcher,
          // The same port on every machine; each node's URL defaults to its own address.
          env: { SKEIN_HOST: host.address, SKEIN_ALLOW_NON_LOOPBACK: "1", SKEIN_PORT: "7700" },
        };
      })) as [DaemonHarness, DaemonHarness, DaemonHarness];
    }, 90_000);

    afterAll(async () => {
      // The lab goes whatever happens to the nodes: namespaces and the server outlive a test run.
      try {
        await Promise.race([cluster?.close(), sleep(30_000)]);
        await provider?.close();
      } finally {
        await lab?.destroy();
      }
    }, 60_000);

    const idOf = (node: DaemonHarness) => cluster.nodeIdOf(node);

    it("relays between the machines and serves clients on each, every node at its own address", async () => {
      provider.script = () => text("ok");
      const listed = (await n2.api("/cluster")).json<{ nodes: Array<{ url: string; live: boolean }> }>();
      expect(
        listed.nodes
          .filter((node) => node.live)
          .map((node) => node.url)
          .sort(),
      ).toEqual(["n1", "n2", "n3"].map((name) => `http://${lab.host(name).address}:7700`));
      const sessionId = await n1.createSession();
      const watcher = await n2.openStream(sessionId);
      const first = await watcher.next();
      const inputId = uuidv7();
      await n3.prompt(sessionId, "across machines", inputId);
      const frames = await watcher.readUntil((event) => event.type === "turn_completed");
      for (const frame of frames) expect(frame.id?.startsWith(first.batch.generation)).toBe(true);
      watcher.close();
      expect((await n3.receipt(sessionId, inputId)).turn?.state).toBe("completed");
      expect(await cluster.ownerOf(sessionId)).toBe(await idOf(n1));
      // Each node warns that relays cross the network in clear text.
      expect(n1.readLog()).toMatch(/plain http on a network address/);
    });

    it("a client's node cut from the owner: 503 with Retry-After there, its relayed stream ends, the client resumes on another node", async () => {
      provider.script = () => text("ok");
      const sessionId = await n1.createSession();
      await n1.turn(sessionId, "before the partition");
      const throughN3 = await n3.openStream(sessionId);
      const first = await throughN3.next();
      lab.partition("n3", ["n1"]);
      try {
        const started = Date.now();
        const refused = await n3.api(`/sessions/${sessionId}?tail=0`);
        expect(refused.status).toBe(503);
        expect(refused.headers["retry-after"]).toBe("1");
        expect(Date.now() - started).toBeLessThan(6_000);
        // The stream through n3 went silent: n3 ends it (no keepalive for three periods).
        await throughN3.waitClosed(25_000);
        const resumed = await n2.openStream(sessionId, { lastEventId: first.id! });
        const page = await resumed.next();
        expect(page.batch.generation).toBe(first.batch.generation);
        expect(page.batch.snapshot).toBeUndefined();
        const inputId = uuidv7();
        await n2.prompt(sessionId, "during the partition", inputId);
        await resumed.readUntil((event) => event.type === "turn_completed");
        resumed.close();
        expect(await cluster.ownerOf(sessionId)).toBe(await idOf(n1));
      } finally {
        lab.heal("n3");
      }
      expect(userTexts((await n3.history(sessionId)).items)).toEqual([
        "before the partition",
        "during the partition",
      ]);
      // n3 published what went wrong with its next heartbeat: every node's GET /cluster shows it.
      const n3Id = await idOf(n3);
      await eventually("n3's relay error in GET /cluster", async () => {
        const listed = (await n2.api("/cluster")).json<{
          nodes: Array<{ id: string; last_error: { message: string } | null }>;
        }>();
        const error = listed.nodes.find((node) => node.id === n3Id)?.last_error;
        return error !== null && error !== undefined && /could not relay to node/.test(error.message)
          ? true
          : undefined;
      });
    }, 60_000);

    it("an owner cut from the other nodes keeps its sessions: the others answer 503 with Retry-After until it is back", async () => {
      provider.script = () => text("ok");
      const sessionId = await n1.createSession();
      lab.partition("n1", ["n2", "n3"]);
      try {
        for (const node of [n2, n3]) {
          const refused = await node.api(`/sessions/${sessionId}?tail=0`);
          expect(refused.status).toBe(503);
          expect(refused.headers["retry-after"]).toBe("1");
        }
        // Its clients still reach it, and its lease stays live (it reaches the database).
        await n1.turn(sessionId, "on the owner, cut from its peers");
        await sleep(leaseSeconds * 1000 + 500);
        expect(await cluster.ownerOf(sessionId)).toBe(await idOf(n1));
      } finally {
        lab.heal("n1");
      }
      expect(userTexts((await n2.history(sessionId)).items)).toEqual(["on the owner, cut from its peers"]);
      expect(n2.readLog()).not.toMatch(/refused connections; marked stopped/);
    }, 60_000);

    it("an owner cut from the database loses its sessions after a lease, and is fenced when the partition heals", async () => {
      const sessionId = await n1.createSession();
      provider.script = () => text("warm");
      await n1.turn(sessionId, "warm up");
      // A turn the partition catches in the middle: its answer trickles in after the cut.
      provider.script = () =>
        deliver(text(["stale ", "answer ", "from ", "the ", "cut ", "owner"]), { delayMs: 400 });
      await n1.prompt(sessionId, "in flight on n1");
      await provider.waitForRequests(2);
      lab.partition("n1", ["db"]);
      let newOwner: string | null = null;
      try {
        provider.script = () => text("from the new owner");
        const cutAt = Date.now();
        const n1Id = await idOf(n1).catch(() => "n1");
        newOwner = await eventually(
          "another node to take the session",
          async () => {
            const owner = await cluster.ownerOf(sessionId);
            return owner !== null && owner !== n1Id ? owner : undefined;
          },
          20_000,
        );
        expect(Date.now() - cutAt).toBeLessThan((leaseSeconds + 5) * 1000);
        const survivor = newOwner === (await idOf(n2)) ? n2 : n3;
        await survivor.idle(sessionId, 20_000);
        await survivor.turn(sessionId, "on the new owner");
      } finally {
        lab.heal("n1");
      }
      // Healed, n1's stale commits reach the database and are refused; it drops the session.
      await eventually(
        "n1 to say it lost the session",
        () =>
          n1
            .readLog()
            .split("\n")
            .some((line) => line.includes(sessionId) && /write fenced|session lease lost/.test(line))
            ? true
            : undefined,
        30_000,
      );
      const stored = await cluster.schema.query<{ entry: string }>(
        "SELECT entry FROM transcript WHERE session = $1",
        [sessionId],
      );
      expect(stored.some((row) => row.entry.includes("cut owner"))).toBe(false);
      expect(await cluster.ownerOf(sessionId)).toBe(newOwner);
      // n1 relays to the new owner again.
      expect(userTexts((await n1.history(sessionId)).items)).toEqual([
        "warm up",
        "in flight on n1",
        "on the new owner",
      ]);
    }, 90_000);
  },
);
