/**
 * A cluster through PostgreSQL outages, under client traffic: a restart of the database
 * (`pg_ctl restart -m fast`, on a server this test owns) and a longer stop, and backends
 * terminated on the shared server (only this suite's, found by the application name its nodes
 * connect with). No node exits; while the database is stopped every answer about a session is
 * 503 with Retry-After; the wake-up connections (LISTEN) come back; and every input a node
 * acknowledged is delivered afterwards.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HeadSigner } from "../../src/log/head-signer.js";
import { text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { createPgSchema, type PgSchema } from "../support/pg-schema.js";
import { processExists } from "../support/process-exists.js";
import { ClusterTraffic, countByStatus, exchange } from "./support/cluster-traffic.js";
import { DaemonHarness, rawRequest, sleep } from "./support/daemon-harness.js";
import { eventually, profileFor } from "./support/fixture.js";
import { PrivatePostgres } from "./support/private-postgres.js";
import { SeededRandom, seedFromEnvironment } from "./support/seeded-random.js";

const leaseSeconds = 2;

describe("a cluster through PostgreSQL outages", () => {
  let provider: FakeProvider;
  let nodes: DaemonHarness[] = [];
  let server: PrivatePostgres | null = null;
  let schema: PgSchema | null = null;
  const token = randomBytes(24).toString("hex");
  const signingKeyPem = HeadSigner.generate().privateKeyPem();
  const seed = seedFromEnvironment();

  beforeAll(async () => {
    provider = await FakeProvider.start();
  });

  afterEach(async () => {
    for (const node of nodes) await node.close();
    nodes = [];
    await server?.close();
    server = null;
    await schema?.drop();
    schema = null;
  });

  afterAll(async () => {
    await provider?.close();
  });

  async function startNodes(url: string, count: number): Promise<DaemonHarness[]> {
    provider.reset();
    provider.script = (request) => text(`answer ${request.index}`);
    const env = { SKEIN_DB: url, SKEIN_TOKEN: token, SKEIN_LEASE_SECONDS: String(leaseSeconds) };
    for (let i = 0; i < count; i++)
      nodes.push(await DaemonHarness.start({ providers: profileFor(provider), env, signingKeyPem }));
    return nodes;
  }

  /** A probe's answer, asked as an orchestrator does: without a credential. */
  async function probe(node: DaemonHarness, path: string): Promise<{ status: number; text: string }> {
    const answer = await rawRequest(node.port, { method: "GET", path, headers: {} });
    return { status: answer.status, text: answer.text };
  }

  /** Each node's process is still running. */
  function alive(): boolean[] {
    return nodes.map((node) => processExists(node.pid));
  }

  async function listenerCount(url: string, application: string | null): Promise<number> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const rows = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %'${application === null ? "" : " AND application_name = $1"}`,
        application === null ? [] : [application],
      );
      return rows.rows[0]!.n;
    } finally {
      await client.end();
    }
  }

  it("survives restarts and a stop of PostgreSQL: no node exits, answers during the stop are 503 with Retry-After, LISTEN comes back, acknowledged inputs are delivered", async () => {
    server = await PrivatePostgres.start();
    const [a] = await startNodes(server.url, 2);
    const sessions = [await a!.createSession(), await a!.createSession(), await a!.createSession()];
    for (const session of sessions) await a!.turn(session, "before");
    const traffic = new ClusterTraffic(() => nodes, sessions, new SeededRandom(seed));
    traffic.start(4);
    try {
      for (let i = 0; i < 2; i++) {
        await sleep(700);
        await server.restart();
      }
      await sleep(1_000);
      // A stop longer than a lease: every node drops its sessions, then claims them again.
      await server.stop();
      const stoppedAt = Date.now();
      await sleep(leaseSeconds * 1000 + 1_000);
      // The probes an orchestrator would ask: alive, but not ready without its database.
      for (const node of nodes) {
        expect((await probe(node, "/healthz")).status).toBe(200);
        expect(await probe(node, "/readyz")).toEqual({ status: 503, text: '{"status":"unavailable"}' });
      }
      const resumedAt = Date.now();
      await server.resume();
      const during = traffic.between(stoppedAt + 500, resumedAt).filter((answer) => answer.status !== 0);
      expect(during.length).toBeGreaterThan(10);
      for (const answer of during) {
        expect(
          { status: answer.status, retryAfter: answer.retryAfter, kind: answer.kind },
          JSON.stringify(countByStatus(during)),
        ).toEqual({ status: 503, retryAfter: "1", kind: answer.kind });
      }
      await sleep(2_000);
    } finally {
      await traffic.stop();
    }
    expect(alive()).toEqual([true, true]);
    expect(traffic.answers.filter((answer) => answer.status >= 500 && answer.status !== 503)).toEqual([]);
    await eventually("both nodes to listen again", async () =>
      (await listenerCount(server!.url, null)) === 2 ? true : undefined,
    );
    expect(await traffic.settle(30_000)).toEqual([]);
    for (const node of nodes) {
      await eventually("the node to be ready again", async () =>
        (await probe(node, "/readyz")).status === 200 ? true : undefined,
      );
    }
    for (const session of sessions) {
      expect((await exchange(nodes[1]!, "GET", `/sessions/${session}/verify`)).status).toBe(200);
    }
  }, 120_000);

  it("survives its backends being terminated again and again on the shared server under traffic", async () => {
    schema = await createPgSchema("skein_outage");
    const application = schema.name;
    const url = `${schema.url}&application_name=${application}`;
    const [a] = await startNodes(url, 2);
    const sessions = [await a!.createSession(), await a!.createSession()];
    const traffic = new ClusterTraffic(() => nodes, sessions, new SeededRandom(seed));
    traffic.start(4);
    const admin = new pg.Client({ connectionString: schema.url });
    await admin.connect();
    try {
      for (let i = 0; i < 8; i++) {
        await sleep(400);
        // This suite's connections only: the server is shared with every other suite.
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
          [application],
        );
      }
      await sleep(1_000);
    } finally {
      await traffic.stop();
      await admin.end();
    }
    expect(alive()).toEqual([true, true]);
    const failures = traffic.answers.filter((answer) => answer.status >= 500);
    for (const failure of failures) expect([failure.status, failure.retryAfter]).toEqual([503, "1"]);
    await eventually("both nodes to listen again", async () =>
      (await listenerCount(schema!.url, application)) === 2 ? true : undefined,
    );
    expect(await traffic.settle(30_000)).toEqual([]);
    const next = uuidv7();
    await nodes[1]!.prompt(sessions[0]!, "after the terminations", next);
    await nodes[0]!.idle(sessions[0]!, 20_000);
    expect((await nodes[0]!.receipt(sessions[0]!, next)).turn?.state).toBe("completed");
  }, 120_000);
});
