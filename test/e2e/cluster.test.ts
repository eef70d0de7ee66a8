/**
 * Several daemon processes on one PostgreSQL schema (a cluster): any node answers for any
 * session, the owner's stream reaches watchers on other nodes with the owner's cursors, a
 * SIGKILLed owner's sessions are taken over after its lease expires and recovered as after a
 * crash, a paused owner is fenced, a SIGTERMed one hands off at once, and inputs sent through
 * all nodes run once each, in acceptance order. Leases are 2 s here to keep the suite short.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import { deliver, hang, text, toolCalls } from "../support/fake-provider/reply.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { freePort } from "../support/free-port.js";
import type { PgSchema } from "../support/pg-schema.js";
import { type DaemonHarness, type StreamPage, skeinBin, sleep, userTexts } from "./support/daemon-harness.js";
import { eventually } from "./support/fixture.js";
import { type NodeOptions, TestCluster } from "./support/test-cluster.js";

const leaseSeconds = 2;

describe("a cluster of daemons on one PostgreSQL", () => {
  const fake = withFakeProvider();
  let testCluster: TestCluster;
  let schema: PgSchema;

  afterEach(async () => {
    await testCluster?.close();
  });

  /** `count` nodes on a fresh schema, sharing the token; `perNode(i)` adds a node's own settings. */
  async function cluster(
    count: number,
    lease = leaseSeconds,
    perNode: (index: number) => NodeOptions = () => ({}),
  ): Promise<DaemonHarness[]> {
    testCluster = new TestCluster(fake());
    const nodes = await testCluster.start(count, lease, perNode);
    schema = testCluster.schema;
    return nodes;
  }

  const ownerOf = (sessionId: string) => testCluster.ownerOf(sessionId);
  const nodeIdOf = (node: DaemonHarness) => testCluster.nodeIdOf(node);

  it("lists every node in GET /cluster, and a session created on A, sent to on B, streams on C with A's cursors", async () => {
    const [a, b, c] = await cluster(3);
    const listed = (await c!.api("/cluster")).json<{
      clustered: boolean;
      nodes: Array<{ id: string; live: boolean; self: boolean }>;
    }>();
    expect(listed.clustered).toBe(true);
    expect(listed.nodes.filter((node) => node.live)).toHaveLength(3);
    expect(listed.nodes.filter((node) => node.self)).toHaveLength(1);
    const status = spawnSync(process.execPath, [skeinBin, "daemon", "status"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: a!.root, SKEIN_HOME: a!.home },
      encoding: "utf8",
    });
    expect(status.status).toBe(0);
    expect(status.stdout).toContain(`cluster: 3 live node(s), lease ${leaseSeconds} s`);
    expect(status.stdout.match(/ live, \d+ session\(s\) owned/g)).toHaveLength(3);

    const sessionId = await a!.createSession();
    expect(await ownerOf(sessionId)).toBe(await nodeIdOf(a!));
    const onC = await c!.openStream(sessionId);
    const first = await onC.next();
    const onA = await a!.streamPage(sessionId);
    expect(first.batch.generation).toBe(onA.generation);

    const inputId = uuidv7();
    await b!.prompt(sessionId, "hello from B", inputId);
    const frames = await onC.readUntil(
      (event) => event.type === "turn_completed" || event.type === "turn_ended",
    );
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame.id?.startsWith(`${onA.generation}`)).toBe(true);
    await c!.idle(sessionId);
    expect((await c!.receipt(sessionId, inputId)).turn?.state).toBe("completed");
    expect(userTexts((await b!.history(sessionId)).items)).toEqual(["hello from B"]);

    // Reconnect to B with C's last cursor: only later events, from the owner's same generation.
    const last = frames[frames.length - 1]!.id!;
    const resumed = await b!.openStream(sessionId, { lastEventId: last });
    const page = (await resumed.next()).batch as StreamPage;
    expect(page.generation).toBe(onA.generation);
    expect(page.snapshot).toBeUndefined();
    onC.close();
    resumed.close();
  });

  it("relays between nodes that listen on different addresses, for clients that name those addresses", async () => {
    // 127.0.0.2-4 are loopback, so no opt-in is needed, but each is an address of its own: a
    // relay or a client names it in Host, as it would a machine's address. Node C's URL is
    // given (SKEIN_NODE_URL), A's and B's default to their listen addresses.
    const cPort = await freePort("127.0.0.4");
    const [a, b, c] = await cluster(3, leaseSeconds, (index) => {
      const address = `127.0.0.${index + 2}`;
      const env: Record<string, string> = { SKEIN_HOST: address };
      if (index === 2) {
        env.SKEIN_PORT = String(cPort);
        env.SKEIN_NODE_URL = `http://${address}:${cPort}`;
      }
      return { address, env };
    });
    const listed = (await b!.api("/cluster")).json<{ nodes: Array<{ url: string; live: boolean }> }>();
    expect(listed.nodes.map((node) => node.url).sort()).toEqual(
      [a!, b!, c!].map((node) => `http://${node.address}:${node.port}`).sort(),
    );
    expect(listed.nodes.every((node) => node.live)).toBe(true);
    for (const owner of [a!, c!]) {
      const sessionId = await owner.createSession();
      const watcher = await b!.openStream(sessionId);
      await watcher.next();
      const inputId = uuidv7();
      await (owner === a ? c! : a!).prompt(sessionId, "across addresses", inputId);
      await watcher.readUntil((event) => event.type === "turn_completed" || event.type === "turn_ended");
      watcher.close();
      expect((await b!.receipt(sessionId, inputId)).turn?.state).toBe("completed");
      expect(await ownerOf(sessionId)).toBe(await nodeIdOf(owner));
    }
    // No node was taken for gone: every relay reached its owner.
    for (const node of [a!, b!, c!]) expect(node.readLog()).not.toMatch(/refused connections|host_forbidden/);
  });

  it("runs inputs sent through every node once each, in acceptance order", async () => {
    const all = await cluster(3);
    const sessionId = await all[0]!.createSession();
    const sent = Array.from({ length: 9 }, (_, i) => ({
      id: uuidv7(),
      text: `input ${i}`,
      node: all[i % 3]!,
    }));
    const receipts = await Promise.all(
      sent.map((input) => input.node.prompt(sessionId, input.text, input.id)),
    );
    await all[1]!.idle(sessionId, 30_000);
    const order = new Map(
      receipts.map((receipt) => [receipt.id as string, receipt.acceptance_order as number]),
    );
    expect(new Set(order.values()).size).toBe(9);
    const byAcceptance = [...sent]
      .sort((x, y) => order.get(x.id)! - order.get(y.id)!)
      .map((input) => input.text);
    const texts = userTexts((await all[2]!.history(sessionId)).items);
    // Inputs queued together may share a turn; each appears once, in acceptance order.
    expect(texts.join("\n").split("\n")).toEqual(byAcceptance);
  });

  it("takes over a SIGKILLed owner's session within lease + 5 s: the cut turn is abandoned, the queued input runs", async () => {
    const [a, b] = await cluster(2);
    fake().script = (request) => (request.index === 0 ? hang() : text(`answer ${request.index}`));
    const sessionId = await a!.createSession();
    const cut = uuidv7();
    await a!.prompt(sessionId, "cut short", cut);
    await fake().waitForRequests(1);
    const queued = uuidv7();
    await b!.prompt(sessionId, "queued behind it", queued);
    const killedAt = Date.now();
    await a!.kill();
    const bId = await nodeIdOf(b!);
    await eventually(
      "B to own the session",
      async () => ((await ownerOf(sessionId)) === bId ? true : undefined),
      15_000,
    );
    expect(Date.now() - killedAt).toBeLessThan((leaseSeconds + 5) * 1000);
    await b!.idle(sessionId, 20_000);
    expect((await b!.receipt(sessionId, cut)).turn?.state).toBe("abandoned");
    expect((await b!.receipt(sessionId, queued)).turn?.state).toBe("completed");
    // The chain verifies on B, heads signed by A's key included.
    const verify = (await b!.api(`/sessions/${sessionId}/verify`)).json<{
      status: string;
      head: { signature_status: string };
    }>();
    expect(verify.status).toBe("verified");
    expect(verify.head.signature_status).toBe("valid");
    await b!.turn(sessionId, "and the next one");
    expect(userTexts((await b!.history(sessionId)).items)).toEqual([
      "cut short",
      "queued behind it",
      "and the next one",
    ]);
  });

  it("serves on every node a session whose id was asked for on B before A created it, and B takes it over when A dies", async () => {
    const [a, b] = await cluster(2);
    const sessionId = uuidv7();
    expect((await b!.api(`/sessions/${sessionId}`)).status).toBe(404);
    const put = await b!.api(`/sessions/${sessionId}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: b!.workspace },
    });
    expect(put.status).toBe(201);
    expect((await b!.api(`/sessions/${sessionId}`)).status).toBe(200);
    expect((await a!.api(`/sessions/${sessionId}`)).status).toBe(200);

    const other = uuidv7();
    expect((await b!.api(`/sessions/${other}`)).status).toBe(404);
    const created = await a!.api(`/sessions/${other}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: a!.workspace },
    });
    expect(created.status).toBe(201);
    expect((await b!.api(`/sessions/${other}`)).status).toBe(200);
    await a!.kill();
    const bId = await nodeIdOf(b!);
    await b!.turn(other, "after the owner died");
    expect(await ownerOf(other)).toBe(bId);
    expect(userTexts((await b!.history(other)).items)).toEqual(["after the owner died"]);
  });

  it("accepts an input on another node at once when the owner's address refuses connections, long before its lease ends", async () => {
    const [a, b] = await cluster(2, 60);
    fake().script = (request) => (request.index === 0 ? hang() : text(`answer ${request.index}`));
    const sessionId = await a!.createSession();
    const cut = uuidv7();
    await a!.prompt(sessionId, "cut short", cut);
    await fake().waitForRequests(1);
    await a!.kill();
    const sentAt = Date.now();
    const next = uuidv7();
    await b!.prompt(sessionId, "sent to B after the kill", next);
    await b!.idle(sessionId, 10_000);
    // A 60 s lease did not have to run out: A refused the relay, so B took the session.
    expect(Date.now() - sentAt).toBeLessThan(10_000);
    expect((await b!.receipt(sessionId, cut)).turn?.state).toBe("abandoned");
    expect((await b!.receipt(sessionId, next)).turn?.state).toBe("completed");
    expect(b!.readLog()).toMatch(/refused connections; marked stopped/);
  });

  it("ends a turn interrupted through another node just before the owner's SIGKILL as interrupted on the node that takes over", async () => {
    const [a, b] = await cluster(2, 60);
    const command = "echo started >> effects.txt; sleep 30";
    fake().queue(toolCalls([{ name: "run_command", args: { command }, id: "call_sleep" }]));
    fake().script = () => text("a turn that should not run");
    const sessionId = await a!.createSession();
    const inputId = uuidv7();
    await a!.prompt(sessionId, "record that you started, then wait", inputId);
    const effects = join(a!.workspace, "effects.txt");
    await eventually("the command to start", () => (existsSync(effects) ? true : undefined));
    const turnId = (await a!.receipt(sessionId, inputId)).turn!.id;

    // Relayed to A, which marks the turn before answering; A dies right after.
    const interrupted = await b!.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: turnId, through_input_order: 1 },
    });
    expect(interrupted.status).toBe(200);
    expect(interrupted.json()).toMatchObject({ state: "requested" });
    await a!.kill();

    // B finds A's address refusing connections and takes the session at once.
    await b!.idle(sessionId, 10_000);
    expect((await b!.receipt(sessionId, inputId)).turn).toMatchObject({ id: turnId, state: "interrupted" });
    const kinds = await b!.historyKinds(sessionId);
    expect(kinds).toEqual(["user", "tool_call", "tool_result"]);
    expect(fake().requests).toHaveLength(1);
    expect(readFileSync(effects, "utf8")).toBe("started\n");
  });

  it("takes over a session SIGKILLed mid-tool on another node: unknown outcome, the tool ran once, a watcher on B follows the new generation", async () => {
    const [a, b] = await cluster(2);
    const command = "echo started >> effects.txt; sleep 30";
    fake().queue(toolCalls([{ name: "run_command", args: { command }, id: "call_sleep_1" }]));
    fake().script = () => text("checked effects.txt");
    const sessionId = await a!.createSession();
    const watcher = await b!.openStream(sessionId);
    const before = (await watcher.next()).batch.generation;
    const inputId = uuidv7();
    await b!.prompt(sessionId, "record that you started, then wait", inputId);
    const effects = join(a!.workspace, "effects.txt");
    await eventually("the command to start", () => (existsSync(effects) ? true : undefined));
    const killedAt = Date.now();
    await a!.kill();
    // The relayed stream ends with its owner; the watcher reconnects to B and gets the new generation.
    await watcher.waitClosed(15_000);
    await b!.idle(sessionId, (leaseSeconds + 10) * 1000);
    expect(Date.now() - killedAt).toBeLessThan((leaseSeconds + 5) * 1000 + 2_000);
    const resumed = await b!.openStream(sessionId, { after: { generation: before, cursor: 1 } });
    const page = (await resumed.next()).batch;
    expect(page.generation).not.toBe(before);
    expect(page.events.map((event) => event.type)).toContain("reset");
    resumed.close();
    expect((await b!.receipt(sessionId, inputId)).turn?.state).toBe("abandoned");
    const kinds = await b!.historyKinds(sessionId);
    expect(kinds).toEqual(["user", "tool_call", "tool_result", "note", "assistant"]);
    expect(readFileSync(effects, "utf8")).toBe("started\n");
    await b!.turn(sessionId, "next");
    const verify = (await b!.api(`/sessions/${sessionId}/verify`)).json<{ status: string }>();
    expect(verify.status).toBe("verified");
  });

  it("fences a paused owner: after another node took the session, the old owner commits nothing and says so", async () => {
    const [a, b] = await cluster(2);
    const sessionId = await a!.createSession();
    await a!.turn(sessionId, "warm up");
    const bId = await nodeIdOf(b!);
    // A turn A is in the middle of when it is paused: its answer trickles in after the pause.
    fake().script = () =>
      deliver(text(["stale ", "answer ", "from ", "the ", "old ", "owner"]), { delayMs: 700 });
    await a!.prompt(sessionId, "in flight on A");
    await fake().waitForRequests(2);
    process.kill(a!.pid, "SIGSTOP");
    try {
      fake().script = () => text("from B");
      await eventually(
        "B to take the session over",
        async () => ((await ownerOf(sessionId)) === bId ? true : undefined),
        15_000,
      );
      await b!.idle(sessionId, 20_000);
      await b!.turn(sessionId, "on B");
    } finally {
      process.kill(a!.pid, "SIGCONT");
    }
    const count = async () =>
      Number(
        (
          await schema.query<{ n: string }>("SELECT count(*) AS n FROM transcript WHERE session = $1", [
            sessionId,
          ])
        )[0]!.n,
      );
    const positions = await count();
    // Long enough for A's stale answer to arrive in full and be offered for commit.
    await sleep(5_000);
    expect(a!.readLog()).toMatch(/lease lost|write fenced/);
    expect(await count()).toBe(positions);
    const stored = await schema.query<{ entry: string }>("SELECT entry FROM transcript WHERE session = $1", [
      sessionId,
    ]);
    expect(stored.some((row) => row.entry.includes("old owner"))).toBe(false);
    expect(await ownerOf(sessionId)).toBe(bId);
    await b!.turn(sessionId, "still on B");
  });

  it("hands a SIGTERMed node's sessions to the others at once, without waiting for the lease", async () => {
    const [a, b, c] = await cluster(3);
    const sessions = await Promise.all([1, 2, 3].map(() => a!.createSession()));
    for (const sessionId of sessions) await a!.turn(sessionId, "before");
    fake().script = (request) => text(`answer ${request.index}`);
    const stopped = a!.signal("SIGTERM");
    await stopped;
    // Inputs through the survivors run at once: the leases were released, not left to expire.
    const started = Date.now();
    for (const sessionId of sessions) await b!.prompt(sessionId, "after");
    for (const sessionId of sessions) await c!.idle(sessionId, 10_000);
    expect(Date.now() - started).toBeLessThan(leaseSeconds * 1000);
    for (const sessionId of sessions) {
      expect(userTexts((await c!.history(sessionId)).items)).toEqual(["before", "after"]);
    }
  });
});
