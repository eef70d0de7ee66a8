/**
 * Fault injection for a cluster under client traffic: three real daemon nodes on a PostgreSQL
 * server the run owns, idempotent inputs from clients on random nodes (cluster-traffic.ts), and
 * cycle after cycle one fault: a node SIGKILLed, SIGSTOPped past its lease, or SIGTERMed (each
 * restarted or resumed after), or the database restarted (`-m fast`) or killed with every
 * backend (`-m immediate`) and started again. Each cycle measures how long the faulted node's
 * sessions took to answer from another node (node faults) or to answer again at all (database
 * faults), and what was answered while the database was down. At the end the invariants are
 * checked: no node died of a fault it was not given, no answer was a 500 or `log_corrupt`, every
 * acknowledged input was delivered exactly once, every log verifies, and an audit (a trigger on
 * `transcript`) shows that every entry was written by the node that held the session's lease
 * under the epoch it was written in.
 *
 * Boundary rule: test support, shared by the e2e test (a few cycles) and the bench suite (many).
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { deliver, text } from "../../support/fake-provider/reply.js";
import type { FakeProvider } from "../../support/fake-provider/server.js";
import { processExists } from "../../support/process-exists.js";
import { ClusterTraffic, countByStatus, exchange, type TrafficAnswer } from "./cluster-traffic.js";
import { DaemonHarness, sleep } from "./daemon-harness.js";
import { profileFor } from "./fixture.js";
import { PrivatePostgres } from "./private-postgres.js";
import { type AuditRow, auditRowsQuery, auditTrigger, auditViolations } from "./row-audit.js";
import type { SeededRandom } from "./seeded-random.js";

/** What one cycle does. */
type FaultKind = "sigkill" | "sigstop" | "sigterm" | "db_restart" | "db_kill";

const faultKinds: readonly FaultKind[] = ["sigkill", "sigstop", "sigterm", "db_restart", "db_kill"];

/** One cycle's measurements. */
interface CycleResult {
  kind: FaultKind;
  /** Node faults: until every session the node owned answered from another node; database faults: until every session answered again after the database was back (ms). */
  takeoverMs: number;
  /** Sessions the faulted node owned (node faults) or all of them (database faults). */
  sessions: number;
}

/** What the run saw, for the caller's assertions and figures. */
export interface FaultRunReport {
  seed: number;
  cycles: CycleResult[];
  /** Every answer the traffic received. */
  answers: TrafficAnswer[];
  /** Answers received while the database was down, by status, per kind of database fault. */
  outageAnswers: Record<"db_restart" | "db_kill", Record<string, number>>;
  /** Every invariant that does not hold, as a sentence (empty: all hold). */
  violations: string[];
  inputs: { sent: number; acknowledged: number };
  /** Log entries the audit saw written. */
  audited: number;
}

export interface FaultRunOptions {
  provider: FakeProvider;
  random: SeededRandom;
  seed: number;
  cycles: number;
  /** The kinds to draw from, in turn first (so a short run has each once), then at random. */
  kinds?: readonly FaultKind[];
  leaseSeconds?: number;
  sessions?: number;
  /** Called after each cycle (progress for long runs). */
  progress?: (index: number, result: CycleResult) => void;
}

/** Run the cycles; never throws for a violated invariant (the report lists them). */
export async function runFaults(options: FaultRunOptions): Promise<FaultRunReport> {
  const { provider, random } = options;
  const leaseSeconds = options.leaseSeconds ?? 2;
  const kinds = options.kinds ?? faultKinds;
  const server = await PrivatePostgres.start();
  const nodes: DaemonHarness[] = [];
  /** Nodes that are down or paused: the traffic leaves them alone until they are back. */
  const away = new Set<number>();
  /** Which node (index) each instance id belongs to, over restarts. */
  const instances = new Map<string, number>();
  const violations: string[] = [];
  const cycles: CycleResult[] = [];
  const outages: Array<{ kind: FaultKind; from: number; to: number }> = [];
  let traffic: ClusterTraffic | null = null;
  try {
    provider.reset();
    // Turns that take a little while: faults land mid-stream as often as between turns.
    provider.script = (request) => deliver(text([`answer `, `${request.index}`, "."]), { delayMs: 60 });
    const token = randomBytes(24).toString("hex");
    const signingKeyPem = HeadSigner.generate().privateKeyPem();
    for (let i = 0; i < 3; i++) {
      const env = {
        // Each node's connections carry its name: the audit tells the writers apart.
        SKEIN_DB: `${server.url}?application_name=node${i}`,
        SKEIN_TOKEN: token,
        SKEIN_LEASE_SECONDS: String(leaseSeconds),
        SKEIN_LOG_LEVEL: "warn",
      };
      nodes.push(await DaemonHarness.start({ providers: profileFor(provider), env, signingKeyPem }));
      await learnInstance(nodes[i]!, i, instances);
    }
    const admin = async <R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        return (await client.query<R>(sql, params)).rows;
      } finally {
        await client.end();
      }
    };
    await admin(auditTrigger);
    const sessions: string[] = [];
    for (let i = 0; i < (options.sessions ?? 6); i++) sessions.push(await nodes[i % 3]!.createSession());
    traffic = new ClusterTraffic(
      () => nodes,
      sessions,
      random,
      (index) => !away.has(index),
    );
    traffic.start(4, 30);

    for (let index = 0; index < options.cycles; index++) {
      const kind = index < kinds.length ? kinds[index]! : random.pick(kinds);
      await sleep(random.int(200, 1_200));
      const result = await runCycle(kind);
      cycles.push(result);
      options.progress?.(index, result);
      await healthy(sessions, 60_000);
    }
    await traffic.stop();

    const undelivered = await traffic.settle(60_000);
    for (const input of undelivered)
      violations.push(
        `input ${input.id} (${input.acknowledged ? "acknowledged" : "never acknowledged"}) was not delivered`,
      );
    for (const [index, node] of nodes.entries()) {
      if (!processExists(node.pid)) violations.push(`node ${index} died (pid ${node.pid})`);
    }
    for (const answer of traffic.answers) {
      if (answer.status === 500 || answer.code === "log_corrupt" || answer.code === "internal_error")
        violations.push(`node ${answer.node} answered ${answer.status} ${answer.code} to a ${answer.kind}`);
      if (answer.status === 503 && answer.retryAfter === null)
        violations.push(
          `node ${answer.node} answered 503 ${answer.code} without Retry-After to a ${answer.kind}`,
        );
    }
    const delivered = await admin<{ input_id: string; n: number }>(
      "SELECT entry::json->>'input_id' AS input_id, count(*)::int AS n FROM transcript WHERE kind = 'user_input' GROUP BY 1",
    );
    const counts = new Map(delivered.map((row) => [row.input_id, row.n]));
    for (const input of traffic.inputs.filter((sent) => sent.acknowledged)) {
      const n = counts.get(input.id) ?? 0;
      if (n !== 1) violations.push(`acknowledged input ${input.id} is in the log ${n} times`);
    }
    for (const session of sessions) {
      const verify = await exchange(nodes[0]!, "GET", `/sessions/${session}/verify`, undefined, 30_000);
      const status = verify.status === 200 ? (JSON.parse(verify.text) as { status: string }).status : null;
      if (status !== "verified") violations.push(`session ${session} verifies as ${status ?? verify.status}`);
    }
    const audited = await admin<AuditRow>(auditRowsQuery);
    violations.push(...auditViolations(audited, instances));
    const during = (kind: FaultKind) =>
      countByStatus(
        traffic!.answers.filter((answer) =>
          outages.some(
            (outage) => outage.kind === kind && answer.sentAt >= outage.from && answer.sentAt <= outage.to,
          ),
        ),
      );
    return {
      seed: options.seed,
      cycles,
      answers: traffic.answers,
      outageAnswers: { db_restart: during("db_restart"), db_kill: during("db_kill") },
      violations,
      audited: audited.length,
      inputs: {
        sent: traffic.inputs.length,
        acknowledged: traffic.inputs.filter((input) => input.acknowledged).length,
      },
    };
  } finally {
    await traffic?.stop();
    if (violations.length > 0) {
      // The nodes' logs, kept for a look at what went wrong (the homes are removed below).
      const kept = join(tmpdir(), `skein-faults-${options.seed}`);
      mkdirSync(kept, { recursive: true });
      for (const [index, node] of nodes.entries())
        writeFileSync(join(kept, `node${index}.log`), node.readLog());
      violations.push(`the nodes' logs are in ${kept}`);
    }
    for (const node of nodes) {
      try {
        process.kill(node.pid, "SIGCONT");
      } catch {
        // gone
      }
      await node.close();
    }
    await server.close();
  }

  /** One fault, its takeover measured, the cluster restored. */
  async function runCycle(kind: FaultKind): Promise<CycleResult> {
    const all = await sessionsOwned(null);
    switch (kind) {
      case "sigkill":
      case "sigstop":
      case "sigterm": {
        // A node that owns sessions, when one does: its actors are what the fault is about.
        const owners: number[] = [];
        for (const [index, candidate] of nodes.entries())
          if ((await sessionsOwned(candidate)).length > 0) owners.push(index);
        const victim = owners.length > 0 ? random.pick(owners) : random.int(0, 2);
        const node = nodes[victim]!;
        const owned = await sessionsOwned(node);
        const others = [0, 1, 2].filter((index) => index !== victim);
        away.add(victim);
        const faultAt = Date.now();
        // Sent, not awaited: a SIGTERMed node drains (its turns end) while the others take over.
        process.kill(node.pid, kind === "sigkill" ? "SIGKILL" : kind === "sigterm" ? "SIGTERM" : "SIGSTOP");
        const exited = kind === "sigstop" ? Promise.resolve() : node.waitExit(60_000).then(() => undefined);
        const takeoverMs = await answeredBy(owned, others, faultAt, victim);
        await exited;
        if (kind === "sigstop") {
          // Past the lease for sure, then back, with traffic at once (the old actors' queued writes must be fenced).
          await sleep(Math.max(0, leaseSeconds * 1000 + random.int(200, 1_500) - (Date.now() - faultAt)));
          process.kill(node.pid, "SIGCONT");
        } else {
          await node.boot();
          await learnInstance(node, victim, instances);
        }
        away.delete(victim);
        return { kind, takeoverMs, sessions: owned.length };
      }
      case "db_restart":
      case "db_kill": {
        // The window a database was down in: a restart's lies inside one pg_ctl call (its edges
        // may catch requests served just before the stop or just after the start); a kill's is
        // exactly from the stop's end to the start's beginning.
        let from = Date.now();
        let to: number;
        if (kind === "db_restart") {
          await server.restart();
          to = Date.now();
        } else {
          await server.stop("immediate");
          from = Date.now();
          await sleep(random.int(500, 3_000));
          to = Date.now();
          await server.resume();
        }
        const backAt = Date.now();
        outages.push({ kind, from, to });
        const takeoverMs = await answeredBy(all, [0, 1, 2], backAt, null);
        return { kind, takeoverMs, sessions: all.length };
      }
      default: {
        const unknown: never = kind;
        throw new Error(`unknown fault ${String(unknown)}`);
      }
    }
  }

  /** Sessions whose live lease `node` holds (null: every session). */
  async function sessionsOwned(node: DaemonHarness | null): Promise<string[]> {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      if (node === null)
        return (await client.query<{ id: string }>("SELECT id FROM sessions")).rows.map((r) => r.id);
      const instance = [...instances].filter(([, index]) => nodes[index] === node).map(([id]) => id);
      const rows = await client.query<{ session: string }>(
        "SELECT session FROM session_leases WHERE node_id = ANY($1) AND expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint",
        [instance],
      );
      return rows.rows.map((row) => row.session);
    } finally {
      await client.end();
    }
  }

  /**
   * Wait until each session answers a snapshot (200) from one of `via`, and (`from`: the faulted
   * node) its lease has moved to another node; ms from `since` until the last one did.
   */
  async function answeredBy(
    sessionIds: readonly string[],
    via: readonly number[],
    since: number,
    from: number | null,
  ): Promise<number> {
    let last = since;
    for (const session of sessionIds) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const index = random.pick(via);
        const answer = await exchange(nodes[index]!, "GET", `/sessions/${session}?tail=0`, undefined, 2_000);
        const owner = from === null ? null : await ownerIndex(session);
        if (answer.status === 200 && (from === null || owner !== from)) break;
        if (Date.now() > deadline) {
          violations.push(
            `session ${session} did not answer within 60 s of a fault (last: node ${index} answered ${answer.status} ${answer.text.slice(0, 200)}; lease on node ${owner})`,
          );
          break;
        }
        await sleep(25);
      }
      last = Math.max(last, Date.now());
    }
    return last - since;
  }

  /** The index of the node whose instance holds the session's live lease (null: none does). */
  async function ownerIndex(session: string): Promise<number | null> {
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      const rows = await client.query<{ node_id: string }>(
        "SELECT node_id FROM session_leases WHERE session = $1 AND expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint",
        [session],
      );
      const owner = rows.rows[0]?.node_id;
      return owner === undefined ? null : (instances.get(owner) ?? null);
    } finally {
      await client.end();
    }
  }

  /** Every node answers for every session again. */
  async function healthy(sessionIds: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const node of nodes) {
      for (const session of sessionIds) {
        while (
          (await exchange(node, "GET", `/sessions/${session}?tail=0`, undefined, 2_000)).status !== 200
        ) {
          if (Date.now() > deadline) {
            violations.push(
              `the cluster did not answer for session ${session} within ${timeoutMs} ms of a cycle`,
            );
            return;
          }
          await sleep(50);
        }
      }
    }
  }
}

async function learnInstance(
  node: DaemonHarness,
  index: number,
  instances: Map<string, number>,
): Promise<void> {
  const answer = await exchange(node, "GET", "/server");
  instances.set((JSON.parse(answer.text) as { instance_id: string }).instance_id, index);
}
