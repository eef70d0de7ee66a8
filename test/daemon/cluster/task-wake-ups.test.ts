/**
 * Cross-node wake-ups of waiting `task` calls on the real PostgreSQL: a turn end one node
 * announces reaches every node's listener (its own included) with the session's id, an
 * approval change reaches them as such (not as a turn end), and a stopped node neither hears
 * nor announces anything.
 */
import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TaskWakeUps } from "../../../src/daemon/cluster/task-wake-ups.js";
import type { WakeUpConnection } from "../../../src/daemon/cluster/wake-up-connection.js";
import { eventually } from "../../support/eventually.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { wakeUpsOn } from "./wake-ups-on.js";

let schema: PgSchema;
const pools: pg.Pool[] = [];
const nodes: TaskWakeUps[] = [];
const connections: WakeUpConnection[] = [];

beforeEach(async () => {
  schema = await createPgSchema("skein_task_wake");
});

afterEach(async () => {
  for (const node of nodes.splice(0)) node.stop();
  for (const connection of connections.splice(0)) await connection.stop();
  for (const pool of pools.splice(0)) await pool.end();
  await schema.drop();
});

/**
 * A node's wake-ups, started; `heard` collects the session ids it is woken for by turn ends,
 * `approvals` those whose approvals changed.
 */
async function startNode(heard: string[], approvals: string[] = []): Promise<TaskWakeUps> {
  const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
  pools.push(pool);
  const node = new TaskWakeUps(pool, {
    turnEnded: (sessionId) => heard.push(sessionId),
    approvalsChanged: (sessionId) => approvals.push(sessionId),
  });
  nodes.push(node);
  const wakeUps = await wakeUpsOn(schema.url);
  connections.push(wakeUps);
  await node.start(wakeUps);
  return node;
}

describe("task wake-ups across nodes", () => {
  it("wakes every node, the announcing one too, for a turn end one node announces", async () => {
    const onA: string[] = [];
    const onB: string[] = [];
    const a = await startNode(onA);
    await startNode(onB);
    const child = uuidv7();
    a.announce(child);
    await eventually("B to hear of it", () => (onB.includes(child) ? true : undefined), 5_000);
    await eventually("A to hear of it", () => (onA.includes(child) ? true : undefined), 5_000);
  });

  it("tells every node of a session's approval change as such, not as a turn end", async () => {
    const turnsOnB: string[] = [];
    const approvalsOnB: string[] = [];
    const a = await startNode([]);
    await startNode(turnsOnB, approvalsOnB);
    const child = uuidv7();
    a.announceApprovals(child);
    const ended = uuidv7();
    a.announce(ended);
    await eventually("B to hear the turn end", () => (turnsOnB.includes(ended) ? true : undefined), 5_000);
    // Notifications of one sender arrive in order: the approval change came first.
    expect(approvalsOnB).toEqual([child]);
    expect(turnsOnB).toEqual([ended]);
  });

  it("hears and announces nothing once stopped", async () => {
    const onA: string[] = [];
    const onB: string[] = [];
    const a = await startNode(onA);
    const b = await startNode(onB);
    b.stop();
    const first = uuidv7();
    b.announce(first);
    const second = uuidv7();
    a.announce(second);
    await eventually("A to hear its own", () => (onA.includes(second) ? true : undefined), 5_000);
    expect(onA).not.toContain(first);
    expect(onB).not.toContain(second);
  });
});
