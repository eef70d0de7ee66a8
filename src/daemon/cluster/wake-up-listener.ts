/**
 * A node's wake-up connection: one PostgreSQL connection that LISTENs on the cluster's channel
 * and calls `wake` for every notification. A connection that is lost (a database restart, a
 * terminated backend) is opened again, after a short pause that grows up to 2 s, and `wake` is
 * called once it is back: notifications sent while nobody listened are lost, a scan finds
 * their work anyway.
 *
 * Boundary rule: wake-ups are an optimisation. The node's poll finds the same work later; this
 * file only keeps the latency of a hand-off low through database trouble.
 */
import pg from "pg";
import type { SessionLogger } from "../session/session-services.js";

/** Pauses between attempts to open a lost connection again (the last one repeats). */
const reopenDelaysMs: readonly number[] = [100, 250, 500, 1_000, 2_000];

export class WakeUpListener {
  readonly #connection: pg.ClientConfig;
  readonly #channel: string;
  readonly #logger: SessionLogger;
  readonly #wake: (payload: string) => void;
  #client: pg.Client | null = null;
  #reopening = false;
  #stopped = false;

  /**
   * Listen on `channel` with `connection`; `wake` runs for each notification with its payload
   * (and with "" once a lost connection is back).
   */
  constructor(
    connection: pg.ClientConfig,
    channel: string,
    logger: SessionLogger,
    wake: (payload: string) => void,
  ) {
    this.#connection = connection;
    this.#channel = channel;
    this.#logger = logger;
    this.#wake = wake;
  }

  /** Open the connection and LISTEN (throws when the database cannot be reached now). */
  start(): Promise<void> {
    return this.#open();
  }

  /** Close the connection for good. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  async #open(): Promise<void> {
    const client = new pg.Client(this.#connection);
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      // Only a connection that was listening is replaced; a failed attempt is #reopen's to retry.
      if (this.#client !== client) return;
      this.#client = null;
      void client.end().catch(() => undefined);
      if (this.#stopped) return;
      this.#logger.warn(
        { err: error ?? null, channel: this.#channel },
        "cluster wake-up connection lost; polling until it is back",
      );
      void this.#reopen();
    };
    // Always listened to: an 'error' event with no listener would end the process.
    client.on("error", onLost);
    client.on("end", () => onLost());
    client.on("notification", (message) => this.#wake(message.payload ?? ""));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.#channel}`);
    } catch (error) {
      lost = true;
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  async #reopen(): Promise<void> {
    if (this.#reopening) return;
    this.#reopening = true;
    try {
      for (let attempt = 0; !this.#stopped; attempt++) {
        await pause(reopenDelaysMs[Math.min(attempt, reopenDelaysMs.length - 1)]!);
        if (this.#stopped) return;
        try {
          await this.#open();
        } catch {
          continue;
        }
        this.#logger.info(
          { attempts: attempt + 1, channel: this.#channel },
          "cluster wake-up connection is back",
        );
        this.#wake("");
        return;
      }
    } finally {
      this.#reopening = false;
    }
  }
}

/** Resolve after `ms` without keeping the process alive. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
