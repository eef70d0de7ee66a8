/**
 * The session leases a cluster node holds, each under the epoch it holds it and since when (ms,
 * this node's clock), and their renewal.
 *
 * Boundary rule: bookkeeping and the renewal statements only; the node (cluster-node.ts) decides
 * what a lost lease means for the session's actor.
 */
import type pg from "pg";
import { runPg } from "../storage/pg-runner.js";
import { renewLeaseProgram, renewLeasesProgram } from "./lease-programs.js";

export class HeldLeases {
  readonly #nodeId: string;
  readonly #leaseMs: number;
  readonly #held = new Map<string, { epoch: number; since: number }>();
  #lastRenewal = 0;

  constructor(nodeId: string, leaseMs: number) {
    this.#nodeId = nodeId;
    this.#leaseMs = leaseMs;
  }

  /** How many sessions the node holds. */
  get size(): number {
    return this.#held.size;
  }

  /** When the leases were last renewed (ms, this node's clock; 0: never). */
  get lastRenewal(): number {
    return this.#lastRenewal;
  }

  /** The leases count as renewed now (the node has just registered and heartbeated). */
  renewedNow(): void {
    this.#lastRenewal = Date.now();
  }

  /** Whether a lease's length has passed since the last renewal: another node may own the sessions now. */
  expired(now = Date.now()): boolean {
    return now - this.#lastRenewal >= this.#leaseMs;
  }

  /** The epoch the session is held under (undefined: not held). */
  epochOf(sessionId: string): number | undefined {
    return this.#held.get(sessionId)?.epoch;
  }

  /** Whether the session is held. */
  has(sessionId: string): boolean {
    return this.#held.has(sessionId);
  }

  /** The session is held under `epoch` from `since` on (a renewal before it does not count it lost). */
  hold(sessionId: string, epoch: number, since = Date.now()): void {
    this.#held.set(sessionId, { epoch, since });
  }

  /** The session is no longer held. */
  drop(sessionId: string): void {
    this.#held.delete(sessionId);
  }

  /** The sessions held now (a copy). */
  sessions(): string[] {
    return [...this.#held.keys()];
  }

  /**
   * Renew every lease in one statement (the renewal began at `startedAt`); one it skipped is
   * renewed alone, and one another node took meanwhile is dropped, and `lost` told of it.
   */
  async renew(
    pool: pg.Pool,
    startedAt: number,
    lost: (sessionId: string, epoch: number) => void,
  ): Promise<void> {
    const held = [...this.#held].map(([session, { epoch }]) => ({ session, epoch }));
    const kept = new Map(
      (await runPg(pool, renewLeasesProgram(this.#nodeId, this.#leaseMs, held))).map((row) => [
        row.session,
        row.epoch,
      ]),
    );
    this.#lastRenewal = Date.now();
    for (const [sessionId, { epoch, since }] of [...this.#held]) {
      // A lease taken while this renewal ran is not in its answer, and not lost.
      if (kept.get(sessionId) === epoch || since >= startedAt) continue;
      // Skipped because a commit held its fence lock: renew it alone, waiting for that commit.
      if (await runPg(pool, renewLeaseProgram(sessionId, this.#nodeId, epoch, this.#leaseMs))) continue;
      if (this.#held.get(sessionId)?.epoch !== epoch) continue;
      // Taken while we were away (a pause, a lost connection): stop, commit nothing more.
      this.#held.delete(sessionId);
      lost(sessionId, epoch);
    }
  }

  /** Drop every lease, `lost` told of each. */
  dropAll(lost: (sessionId: string, epoch: number) => void): void {
    for (const [sessionId, { epoch }] of [...this.#held]) {
      this.#held.delete(sessionId);
      lost(sessionId, epoch);
    }
  }
}
