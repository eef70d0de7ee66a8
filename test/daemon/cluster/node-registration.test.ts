/**
 * A node's registration on the real PostgreSQL, and what it does about other registrations at
 * its address: a gone one (this home's previous daemon, or silent for a lease) is marked
 * stopped, a live one (its heartbeat moves) refuses the start.
 */
import type pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { heartbeatProgram, registerNodeProgram } from "../../../src/daemon/cluster/lease-programs.js";
import { NodeUrlTakenError, registerNode } from "../../../src/daemon/cluster/node-registration.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { runPg } from "../../../src/daemon/storage/pg-runner.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";

const url = "http://127.0.0.1:7700";
const leaseMs = 1_000;

let schema: PgSchema;
let pool: pg.Pool;
const warnings: string[] = [];
const logger = {
  info: () => {},
  warn: (_fields: object, message?: string) => void warnings.push(message ?? ""),
  error: () => {},
};

beforeEach(async () => {
  schema = await createPgSchema("skein_nodes");
  pool = await openPgDaemonDatabase(schema.url, { max: 4 });
  warnings.length = 0;
});

afterEach(async () => {
  await pool.end();
  await schema.drop();
});

/** Another node registered at `url`, its heartbeat `ageMs` old. */
async function other(ageMs: number): Promise<string> {
  const id = uuidv7();
  await runPg(pool, registerNodeProgram({ id, url, pid: 4242, publicKey: "" }));
  await schema.query("UPDATE nodes SET heartbeat_at = heartbeat_at - $1 WHERE id = $2", [ageMs, id]);
  return id;
}

async function stopped(id: string): Promise<boolean> {
  const rows = await schema.query<{ stopped_at: string | null }>(
    "SELECT stopped_at FROM nodes WHERE id = $1",
    [id],
  );
  return rows[0]!.stopped_at !== null;
}

function register(previousIncarnation: string | null = null): Promise<void> {
  return registerNode(pool, {
    id: uuidv7(),
    url,
    pid: process.pid,
    publicKey: "",
    leaseMs,
    previousIncarnation,
    logger,
  });
}

describe("registering a node at an address another node has", () => {
  it("marks a registration silent for a lease stopped at once", async () => {
    const old = await other(leaseMs + 500);
    const started = Date.now();
    await register();
    expect(Date.now() - started).toBeLessThan(500);
    expect(await stopped(old)).toBe(true);
    expect(warnings.join("\n")).toMatch(/has not heartbeaten for a lease; marked stopped/);
  });

  it("marks this home's previous daemon stopped at once, however fresh its heartbeat", async () => {
    const previous = await other(0);
    const started = Date.now();
    await register(previous);
    expect(Date.now() - started).toBeLessThan(500);
    expect(await stopped(previous)).toBe(true);
  });

  it("refuses to start beside a live node at the same address, and leaves that node alone", async () => {
    const live = await other(0);
    const beat = setInterval(() => void runPg(pool, heartbeatProgram(live)), leaseMs / 3);
    try {
      const started = Date.now();
      const error = await register().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NodeUrlTakenError);
      expect((error as Error).message).toMatch(/already the address of live node .*\(SKEIN_NODE_URL/);
      expect(Date.now() - started).toBeLessThan(leaseMs + 500);
    } finally {
      clearInterval(beat);
    }
    expect(await stopped(live)).toBe(false);
  });

  it("waits out a fresh registration that stops heartbeating (a crash), then marks it stopped", async () => {
    const crashed = await other(0);
    const started = Date.now();
    await register();
    expect(Date.now() - started).toBeGreaterThanOrEqual(leaseMs - 100);
    expect(Date.now() - started).toBeLessThan(leaseMs + 1_500);
    expect(await stopped(crashed)).toBe(true);
    expect(warnings.join("\n")).toMatch(/waiting up to a lease/);
  });
});
