/**
 * Subagents on a 3-node PostgreSQL cluster, with each child running on another node than its
 * parent. Which node takes over which session of a killed node is chosen, not left to chance:
 * the test holds the lease rows it wants placed (lease-hold.ts), so no orphan scan claims them,
 * and a request about the session to the chosen node claims it the moment the hold is released.
 *
 * One cluster, one story: parents P1 and P2 on node A delegate to alpha and beta (children K1,
 * K2 on A). A is SIGKILLed; K1 and K2 go where the scans take them, each parent to the other
 * live node. Interrupting P2 reaches K2 on its node. A comes back; K1's node is SIGKILLed while
 * K1 streams, and A takes K1 over: K1 finishes there, P1 wakes on its node and completes.
 *
 * A second cluster: a child on node B asks for approval while its parent is on node A; the
 * parent's watcher on A sees the request (and its answer) with the child's session id, also
 * after a reconnect, and answers it through A.
 */
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest, Script } from "../support/fake-provider/server.js";
import { useTestClusters } from "./support/cluster-scope.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { eventually } from "./support/fixture.js";
import { LeaseHold } from "./support/lease-hold.js";
import { eventsOf, type StreamEvent } from "./support/sse-client.js";
import type { TestCluster } from "./support/test-cluster.js";

const agents = {
  alpha: { description: "Looks things up (alpha).", prompt: "MARK-ALPHA: you look things up." },
  beta: { description: "Checks things (beta).", prompt: "MARK-BETA: you check things." },
};

type Who = "alpha" | "beta" | "p1" | "p2";

function whose(request: RecordedRequest): Who {
  const body = request.rawBody;
  if (body.includes("MARK-ALPHA")) return "alpha";
  if (body.includes("MARK-BETA")) return "beta";
  return body.includes("delegate one") ? "p1" : "p2";
}

/** A child's slow stream: long enough to be cut by a kill or an interrupt. */
const slow = () =>
  text(
    Array.from({ length: 300 }, () => "."),
    { delivery: { delayMs: 100 } },
  );

/** P1 delegates to alpha, P2 to beta; alpha's third request (on its third node) answers at once. */
function script(): Script {
  let alphaRequests = 0;
  return (request) => {
    switch (whose(request)) {
      case "alpha":
        alphaRequests++;
        return alphaRequests < 3 ? slow() : text(["nearly ", "ANSWER-ALPHA 42"]);
      case "beta":
        return slow();
      case "p1":
        if (request.rawBody.includes("ANSWER-ALPHA")) return text("parent done");
        return toolCalls([{ name: "task", args: { agent: "alpha", prompt: "find A" }, id: "call_a" }]);
      default:
        return toolCalls([{ name: "task", args: { agent: "beta", prompt: "check B" }, id: "call_b" }]);
    }
  };
}

describe("subagents on a cluster", () => {
  const clusters = useTestClusters();
  const requestsOf = (who: Who) => clusters.provider.requests.filter((request) => whose(request) === who);

  async function childOf(node: DaemonHarness, parentId: string): Promise<string> {
    const listed = (await node.api(`/sessions?parent_id=${parentId}`)).json<{
      items: Array<{ id: string }>;
    }>();
    expect(listed.items).toHaveLength(1);
    return listed.items[0]!.id;
  }

  /** The live node (among `nodes`) that owns `sessionId`, once one does. */
  async function ownerAmong(cluster: TestCluster, nodes: DaemonHarness[], sessionId: string) {
    const ids = await Promise.all(nodes.map((node) => cluster.nodeIdOf(node)));
    return eventually(
      `a node to own ${sessionId}`,
      async () => {
        const owner = await cluster.ownerOf(sessionId);
        const index = owner === null ? -1 : ids.indexOf(owner);
        return index < 0 ? undefined : nodes[index]!;
      },
      15_000,
    );
  }

  /** Kill `dead`, and have each of `placements`' sessions taken over by its chosen node. */
  async function killAndPlace(
    cluster: TestCluster,
    dead: DaemonHarness,
    held: string[],
    place: () => Promise<Array<[DaemonHarness, string]>>,
  ): Promise<void> {
    const hold = await LeaseHold.take(cluster.schema.url, held);
    await dead.kill();
    const placements = await place();
    // Each request claims its session once the owner is found gone; the claim waits for the hold.
    const answers = placements.map(([node, id]) => node.api(`/sessions/${id}?tail=0`));
    await hold.waiters(placements.length);
    await hold.release();
    for (const answer of await Promise.all(answers)) expect(answer.status).toBe(200);
    for (const [node, id] of placements) expect(await cluster.ownerOf(id)).toBe(await cluster.nodeIdOf(node));
  }

  it("recovers a child whose node is SIGKILLed on another node than its parent's, wakes the parent across nodes, and interrupts across nodes", async () => {
    const cluster = clusters.cluster();
    const [a, b, c] = await cluster.start(3, 2, () => ({ config: { agents } }));
    clusters.provider.script = script();
    const p1 = await a!.createSession();
    const p2 = await a!.createSession();
    await a!.prompt(p1, "delegate one");
    await a!.prompt(p2, "delegate two");
    await eventually("both children streaming", async () =>
      requestsOf("alpha").length > 0 && requestsOf("beta").length > 0 ? true : undefined,
    );
    const k1 = await childOf(a!, p1);
    const k2 = await childOf(a!, p2);

    // A dies: the children go where the scans take them; each parent to the other live node.
    const owners = new Map<string, DaemonHarness>();
    await killAndPlace(cluster, a!, [p1, p2], async () => {
      for (const child of [k1, k2]) owners.set(child, await ownerAmong(cluster, [b!, c!], child));
      const other = (child: string) => (owners.get(child) === b ? c! : b!);
      return [
        [other(k1), p1],
        [other(k2), p2],
      ];
    });
    const k1Node = owners.get(k1)!;
    const p1Node = k1Node === b ? c! : b!;
    const p2Node = owners.get(k2) === b ? c! : b!;

    // Interrupting P2 on its node reaches K2 on the other.
    // Once P2's recovered turn runs (running its task call again, waiting on K2).
    const p2Run = await eventually("P2's turn to run again", async () => {
      const snapshot = (await p2Node.api(`/sessions/${p2}?tail=0`)).json<{
        status: { run_id: string | null };
      }>();
      return snapshot.status.run_id ?? undefined;
    });
    const interrupted = await p2Node.api(`/sessions/${p2}/interrupt`, {
      method: "POST",
      body: { run_id: p2Run, through_input_order: 0 },
    });
    expect(interrupted.status).toBe(200);
    await p2Node.idle(p2, 20_000);
    await p2Node.idle(k2, 20_000);
    const k2Turns = await cluster.schema.query<{ state: string }>(
      "SELECT state FROM turns WHERE session = $1 ORDER BY started_at",
      [k2],
    );
    expect(k2Turns.at(-1)?.state).toBe("interrupted");

    // A comes back; K1's node dies while K1 streams its second request, and A takes K1 over.
    await a!.boot();
    await eventually("K1 streaming again", async () => (requestsOf("alpha").length >= 2 ? true : undefined));
    await killAndPlace(cluster, k1Node, [k1], async () => [[a!, k1]]);
    await p1Node.idle(p1, 30_000);

    const alpha = requestsOf("alpha");
    const p1Requests = requestsOf("p1");
    // One request per node K1 ran on, each cut but the last; nothing of K1 after its answer.
    expect(alpha).toHaveLength(3);
    expect(alpha.slice(0, 2).every((request) => request.clientAborted)).toBe(true);
    // P1 asked its model for its one tool batch once, and continued with K1's answer.
    expect(p1Requests).toHaveLength(2);
    expect(p1Requests[1]!.rawBody).toContain("ANSWER-ALPHA 42");
    expect(p1Requests[1]!.rawBody).not.toContain("outcome is unknown");
    expect(requestsOf("p2")).toHaveLength(1);
    expect(await cluster.ownerOf(p1)).toBe(await cluster.nodeIdOf(p1Node));
    const inputs = await cluster.schema.query<{ id: string }>("SELECT id FROM inputs WHERE session = $1", [
      k1,
    ]);
    expect(inputs).toHaveLength(1);
    for (const id of [p1, p2, k1, k2])
      expect((await a!.api(`/sessions/${id}/verify`)).json()).toMatchObject({ status: "verified" });
    const handOffMs = p1Requests[1]!.receivedAt - alpha[2]!.finishedAt!;
    console.info(`child on another node: last token → parent's next request ${handOffMs} ms`);
  }, 90_000);

  it("relays a child's approval on another node to the parent's watcher, which answers it there", async () => {
    const gamma = { description: "Runs things (gamma).", prompt: "MARK-GAMMA: you run things." };
    let gammaRequests = 0;
    const cluster = clusters.cluster();
    // The built-in policy: the child's command waits for a person.
    const [a, b, c] = await cluster.start(3, 2, () => ({
      config: { agents: { gamma }, approvalPolicy: undefined },
    }));
    clusters.provider.script = (request) => {
      const body = request.rawBody;
      if (!body.includes("MARK-GAMMA"))
        return body.includes("ANSWER-GAMMA")
          ? text("parent done")
          : toolCalls([{ name: "task", args: { agent: "gamma", prompt: "run it" }, id: "call_c" }]);
      if (body.includes("call_g") && body.includes('"role":"tool"')) return text("ANSWER-GAMMA done");
      // The first request is cut by C's death; after the takeover the child asks, a little later.
      if (++gammaRequests === 1) return slow();
      return toolCalls(
        [{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_g" }],
        {
          delivery: { delayMs: 200 },
        },
      );
    };
    const parent = await c!.createSession();
    await c!.prompt(parent, "delegate");
    await eventually("the child streaming", async () => (gammaRequests > 0 ? true : undefined));
    const child = await childOf(c!, parent);
    // C dies: the parent goes to A, its child to B.
    await killAndPlace(cluster, c!, [parent, child], async () => [
      [a!, parent],
      [b!, child],
    ]);

    const relayedOf = (event: StreamEvent, type: string) =>
      event.type === type &&
      (event.data as { session_id?: string; call_id: string }).session_id === child &&
      (event.data as { call_id: string }).call_id === "call_g";
    const { generation } = (await a!.api(`/sessions/${parent}?tail=0`)).json<{
      cursor: { generation: string };
    }>().cursor;
    const watcher = await a!.openStream(parent, { after: { generation, cursor: 0 } });
    await watcher.readUntil((event) => relayedOf(event, "approval_requested"), 20_000);
    // Answered at the child's route through A, which relays it to B.
    const answer = await a!.api(`/sessions/${child}/approvals/call_g`, {
      method: "POST",
      body: { decision: "allow" },
    });
    expect(answer.status).toBe(200);
    await watcher.readUntil((event) => relayedOf(event, "approval_resolved"), 10_000);
    watcher.close();
    await a!.idle(parent, 30_000);
    const last = clusters.provider.requests
      .filter((request) => !request.rawBody.includes("MARK-GAMMA"))
      .at(-1)!;
    expect(last.rawBody).toContain("ANSWER-GAMMA done");
    expect(await cluster.ownerOf(child)).toBe(await cluster.nodeIdOf(b!));

    // A watcher that reconnects to the parent's stream hears of both again.
    const again = await a!.openStream(parent, { after: { generation, cursor: 0 } });
    const replayed = eventsOf(await again.readUntil((event) => relayedOf(event, "approval_resolved"), 5_000));
    again.close();
    expect(replayed.some((event) => relayedOf(event, "approval_requested"))).toBe(true);
  }, 60_000);
});
