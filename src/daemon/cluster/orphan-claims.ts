/**
 * A cluster node claiming sessions with work and no live owner: a scan runs when a NOTIFY
 * arrives or the fallback poll fires, claims up to a batch of them in one transaction, and loads
 * each one it claimed.
 *
 * Boundary rule: one scan at a time. A wake-up during a scan runs one more after it, however
 * many arrive; none starts once stopped.
 */
import type pg from "pg";
import type { SessionLogger } from "../session/session-services.js";
import { runPg } from "../storage/pg-runner.js";
import { claimOrphansProgram } from "./lease-programs.js";

/** What claiming needs of its node. */
export interface OrphanClaimsOptions {
  nodeId: string;
  leaseMs: number;
  logger: SessionLogger;
  /** Remember an error for GET /cluster. */
  noteError(message: string): void;
  /** The node holds the session under `epoch` now. */
  claimed(sessionId: string, epoch: number): void;
  /** Load (and so recover and run) a session just claimed. */
  adopt(sessionId: string): Promise<void>;
}

export class OrphanClaims {
  readonly #pool: pg.Pool;
  readonly #options: OrphanClaimsOptions;
  #scanning: Promise<void> | null = null;
  #rescan = false;
  #stopped = false;
  #takeovers = 0;

  constructor(pool: pg.Pool, options: OrphanClaimsOptions) {
    this.#pool = pool;
    this.#options = options;
  }

  /** How many sessions were claimed since start. */
  get takeovers(): number {
    return this.#takeovers;
  }

  /** Scan now, or once more after the scan running now. */
  wake(): void {
    if (this.#stopped) return;
    if (this.#scanning !== null) {
      this.#rescan = true;
      return;
    }
    this.#scanning = (async () => {
      do {
        this.#rescan = false;
        await this.#claimOrphans();
      } while (this.#rescan && !this.#stopped);
      this.#scanning = null;
    })();
  }

  /** Start no scan any more; resolves once the running one has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#scanning;
  }

  async #claimOrphans(): Promise<void> {
    const { nodeId, leaseMs, logger } = this.#options;
    let claimed: Array<{ session: string; epoch: number }>;
    const client = await this.#pool.connect().catch(() => null);
    if (client === null) return;
    try {
      await client.query("BEGIN");
      claimed = await runPg(client, claimOrphansProgram(nodeId, leaseMs, 50));
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      logger.warn({ err: error }, "claiming orphaned sessions failed");
      this.#options.noteError(`claiming orphaned sessions failed: ${(error as Error).message}`);
      return;
    } finally {
      client.release();
    }
    this.#takeovers += claimed.length;
    for (const { session, epoch } of claimed) {
      this.#options.claimed(session, epoch);
      logger.info({ session_id: session, epoch }, "claimed a session with work and no live owner");
      await this.#options.adopt(session).catch((error: unknown) => {
        logger.error({ session_id: session, err: error }, "could not load a claimed session");
      });
    }
  }
}
