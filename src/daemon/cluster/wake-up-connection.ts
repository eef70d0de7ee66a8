/**
 * A node's wake-up connection: one PostgreSQL connection that LISTENs on every channel the
 * node's parts subscribe to (other nodes' hand-offs, the shared config, task turn ends, schedule
 * changes) and hands each notification to its channel's subscribers. A connection that is lost
 * (a database restart, a terminated backend) is opened again, after a short pause that grows up
 * to 2 s, LISTENs on every channel again, and wakes every subscriber with "": notifications sent
 * while nobody listened are lost, a scan finds their work anyway.
 *
 * Boundary rule: wake-ups are an optimisation. Each part's poll finds the same work later; this
 * file only keeps the latency of a hand-off low through database trouble, on one connection per
 * node so that max_connections bounds a cluster by its pools, not by its channels.
 */
import type pg from "pg";
import { pgDriver } from "../../log/pg-driver.js";
import type { SessionLogger } from "../session/session-services.js";

/** Pauses between attempts to open a lost connection again (the last one repeats). */
const reopenDelaysMs: readonly number[] = [100, 250, 500, 1_000, 2_000];

/** What pg_stat_activity shows for the connection when SKEIN_DB names no application. */
export const wakeUpApplicationName = "skein-wake-ups";

/** Called with a notification's payload ("" once a lost connection is back). */
export type Wake = (payload: string) => void;

/** A subscriber's hold on its channel. */
export interface WakeUpSubscription {
  /** Hear nothing more on the channel (UNLISTENed once nobody else hears it). */
  unsubscribe(): void;
}

export class WakeUpConnection {
  readonly #connection: pg.ClientConfig;
  readonly #logger: SessionLogger;
  /** Each channel's subscribers, in the order they subscribed. */
  readonly #subscribers = new Map<string, Set<Wake>>();
  /** The listening connection (null while it is being opened, or lost). */
  #client: pg.Client | null = null;
  #reopening = false;
  #stopped = false;

  /** Listen with `connection` once started. */
  constructor(connection: pg.ClientConfig, logger: SessionLogger) {
    this.#connection = { fallback_application_name: wakeUpApplicationName, ...connection };
    this.#logger = logger;
  }

  /** Open the connection and LISTEN on the channels subscribed so far (throws when the database cannot be reached now). */
  start(): Promise<void> {
    return this.#open();
  }

  /**
   * Call `wake` for each notification on `channel`, and with "" whenever the lost connection is
   * back. Resolves once the channel is LISTENed on, or at once while the connection is not up:
   * opening it LISTENs on the channel then.
   */
  async subscribe(channel: string, wake: Wake): Promise<WakeUpSubscription> {
    const subscription = { unsubscribe: () => this.#unsubscribe(channel, wake) };
    const subscribers = this.#subscribers.get(channel);
    if (subscribers !== undefined) {
      subscribers.add(wake);
      return subscription;
    }
    this.#subscribers.set(channel, new Set([wake]));
    const client = this.#client;
    if (client === null) return subscription;
    try {
      await client.query(listenStatement(client, [channel]));
    } catch (error) {
      // Most likely the connection failing: its replacement LISTENs on the channel and wakes it.
      this.#lose(client, error as Error);
    }
    return subscription;
  }

  /** Close the connection for good. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const client = this.#client;
    this.#client = null;
    await client?.end().catch(() => undefined);
  }

  #unsubscribe(channel: string, wake: Wake): void {
    const subscribers = this.#subscribers.get(channel);
    if (subscribers?.delete(wake) !== true || subscribers.size > 0) return;
    this.#subscribers.delete(channel);
    // Not waited for: a notification still on its way finds no subscriber and is dropped.
    const client = this.#client;
    client?.query(`UNLISTEN ${client.escapeIdentifier(channel)}`).catch(() => undefined);
  }

  /** Hand a notification to its channel's subscribers. */
  #route(channel: string, payload: string): void {
    for (const wake of [...(this.#subscribers.get(channel) ?? [])]) wake(payload);
  }

  async #open(): Promise<void> {
    const { Client } = await pgDriver();
    const client = new Client(this.#connection);
    // Always listened to: an 'error' event with no listener would end the process.
    client.on("error", (error) => this.#lose(client, error));
    client.on("end", () => this.#lose(client, null));
    client.on("notification", (message) => this.#route(message.channel, message.payload ?? ""));
    try {
      await client.connect();
      // A channel subscribed while a LISTEN runs is LISTENed on by the next round.
      const listened = new Set<string>();
      for (;;) {
        const channels = [...this.#subscribers.keys()].filter((channel) => !listened.has(channel));
        if (channels.length === 0) break;
        await client.query(listenStatement(client, channels));
        for (const channel of channels) listened.add(channel);
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    if (this.#stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.#client = client;
  }

  /** `client` failed or ended: if it was the listening connection, replace it (once per loss). */
  #lose(client: pg.Client, error: Error | null): void {
    // Only a connection that was listening is replaced; a failed attempt is #reopen's to retry.
    if (this.#client !== client) return;
    this.#client = null;
    void client.end().catch(() => undefined);
    if (this.#stopped) return;
    this.#logger.warn(
      { err: error, channels: [...this.#subscribers.keys()] },
      "cluster wake-up connection lost; polling until it is back",
    );
    void this.#reopen();
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
          { attempts: attempt + 1, channels: [...this.#subscribers.keys()] },
          "cluster wake-up connection is back",
        );
        // What was announced meanwhile is lost: every subscriber looks once.
        for (const channel of [...this.#subscribers.keys()]) this.#route(channel, "");
        return;
      }
    } finally {
      this.#reopening = false;
    }
  }
}

/** One statement LISTENing on `channels` (each quoted: a name is never read as SQL). */
function listenStatement(client: pg.Client, channels: readonly string[]): string {
  return channels.map((channel) => `LISTEN ${client.escapeIdentifier(channel)}`).join("; ");
}

/** Resolve after `ms` without keeping the process alive. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
