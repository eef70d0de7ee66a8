/**
 * A test's hold on sessions' lease rows: a transaction that locks them `FOR UPDATE`, so no
 * node's orphan scan (which skips locked rows) can claim them, and a node's own claim of one
 * (a request about it) waits for the hold's release and then wins. This is how a cluster test
 * picks, deterministically, which node takes over which session of a killed node.
 *
 * Boundary rule: test support; it locks rows and reads who waits, it writes nothing.
 */
import pg from "pg";
import { sleep } from "./daemon-harness.js";

export class LeaseHold {
  readonly #client: pg.Client;
  readonly #backendPid: number;
  readonly #url: string;

  private constructor(client: pg.Client, backendPid: number, url: string) {
    this.#client = client;
    this.#backendPid = backendPid;
    this.#url = url;
  }

  /** Lock the lease rows of `sessions` in the schema at `url` until `release`. */
  static async take(url: string, sessions: readonly string[]): Promise<LeaseHold> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const pid = (await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
    await client.query("BEGIN");
    const locked = await client.query(
      "SELECT session FROM session_leases WHERE session = ANY($1) FOR UPDATE",
      [sessions],
    );
    if (locked.rowCount !== sessions.length) {
      await client.end();
      throw new Error(`only ${locked.rowCount} of ${sessions.length} lease rows to hold exist`);
    }
    return new LeaseHold(client, pid, url);
  }

  /** Wait until `count` other transactions wait for this hold (e.g. a node's claim). */
  async waiters(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const probe = new pg.Client({ connectionString: this.#url });
      await probe.connect();
      try {
        const rows = await probe.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
          [this.#backendPid],
        );
        if (Number(rows.rows[0]!.n) >= count) return;
      } finally {
        await probe.end();
      }
      if (Date.now() > deadline) throw new Error(`fewer than ${count} waiters on the lease hold`);
      await sleep(50);
    }
  }

  /** Let go of the rows (their waiters go on). */
  async release(): Promise<void> {
    await this.#client.query("COMMIT");
    await this.#client.end();
  }
}
