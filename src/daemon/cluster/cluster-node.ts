/**
 * This daemon as one node of a cluster sharing one PostgreSQL database: it registers and
 * heartbeats in `nodes`, holds leases on the sessions whose actors it runs (`session_leases`),
 * renews them well before they expire, fences every write with them, claims sessions that have
 * work and no live owner, and wakes on LISTEN/NOTIFY (with a slow poll as the fallback).
 *
 * Boundary rule: PostgreSQL is the only coordinator. A node trusts nothing it has not read from
 * the database in a transaction: owning a session means holding its lease under an epoch no
 * other node has raised, and every commit re-checks that epoch (the fence). A node that cannot
 * renew in time gives its sessions up before their leases can expire.
 */

import type pg from "pg";
import type { ClusterNodeInfo } from "../../api/cluster.js";
import type { HeadSigner } from "../../log/head-signer.js";
import type { SessionLogger } from "../session/session-services.js";
import { runPg } from "../storage/pg-runner.js";
import { type WriteFence, WriteFencedError } from "../storage/session-storage.js";
import { HeldLeases } from "./held-leases.js";
import {
  claimLeaseProgram,
  createdLeaseProgram,
  fenceProgram,
  heartbeatProgram,
  type LeaseRecord,
  leaseOfProgram,
  listNodesProgram,
  type NodeRecord,
  type NodeStatus,
  nodeGoneProgram,
  nodeStoppedProgram,
  releaseLeaseProgram,
} from "./lease-programs.js";
import { type NodeHealth, notReadyReason } from "./node-health.js";
import { registerNode } from "./node-registration.js";
import { nodeView } from "./node-view.js";
import { OrphanClaims } from "./orphan-claims.js";
import { ProfileWarnings } from "./profile-warnings.js";
import { SessionOwnedElsewhereError } from "./session-owned-elsewhere.js";
import { unstackedInterval } from "./unstacked-interval.js";
import { UntrustedKeyWarnings } from "./untrusted-keys.js";
import type { WakeUpConnection, WakeUpSubscription } from "./wake-up-connection.js";

/** The channel nodes wake each other on (payload: a session id with work, or "scan"). */
const wakeChannel = "skein_cluster";

export interface ClusterOptions {
  nodeId: string;
  /** How other nodes reach this one (SKEIN_NODE_URL). */
  url: string;
  /** Lease length (SKEIN_LEASE_SECONDS × 1000). */
  leaseMs: number;
  /** The fallback poll for orphaned sessions (default: lease / 4). */
  pollMs?: number;
  signer: HeadSigner;
  logger: SessionLogger;
  /** The instance id of this home's previous daemon (from the daemon.json it left), if any. */
  previousIncarnation?: string | null;
  /** The digest of this node's provider profiles now (config-digest.ts), published with each heartbeat. */
  profilesDigest?: () => string | null;
  /** How long GET /cluster still lists a node that is gone (default 10 minutes). */
  nodeHistoryMs?: number;
  /** Load (and so recover and run) a session this node just claimed. */
  adopt(sessionId: string): Promise<void>;
  /** The session's lease under `epoch` is lost: stop the actor loaded under it without writing anything. */
  lost(sessionId: string, epoch: number): void;
}

/** One node in the GET /cluster answer. */
export type ClusterNodeView = ClusterNodeInfo;

export class ClusterNode implements WriteFence<pg.PoolClient> {
  readonly nodeId: string;
  readonly leaseMs: number;
  readonly #pool: pg.Pool;
  readonly #options: ClusterOptions;
  /** How other nodes reach this one; known once the daemon listens. */
  url: string;
  /** Sessions this node holds, with the epoch it holds them under. */
  readonly #held: HeldLeases;
  /** Releases sent and not yet answered, by session: a claim of the session waits for its release. */
  readonly #releasing = new Map<string, Promise<void>>();
  readonly #orphans: OrphanClaims;
  /** Warns of nodes whose head-signing key is not trusted here. */
  readonly #untrustedKeys: UntrustedKeyWarnings;
  readonly #profileWarnings: ProfileWarnings;
  #lastError: { message: string; at: number } | null = null;
  #wakeUps: WakeUpSubscription | null = null;
  #timers: NodeJS.Timeout[] = [];
  #stopped = false;

  constructor(pool: pg.Pool, options: ClusterOptions) {
    this.#pool = pool;
    this.#options = options;
    this.nodeId = options.nodeId;
    this.leaseMs = options.leaseMs;
    this.url = options.url;
    this.#held = new HeldLeases(options.nodeId, options.leaseMs);
    this.#orphans = new OrphanClaims(pool, {
      nodeId: options.nodeId,
      leaseMs: options.leaseMs,
      logger: options.logger,
      noteError: (message) => this.noteError(message),
      claimed: (sessionId, epoch) => this.#held.hold(sessionId, epoch),
      adopt: (sessionId) => options.adopt(sessionId),
    });
    this.#profileWarnings = new ProfileWarnings(options.logger, () => this.#profilesDigest());
    this.#untrustedKeys = new UntrustedKeyWarnings(options.signer, options.logger);
  }

  /** Register, trust the other nodes' keys, listen for wake-ups on `wakeUps` and start the timers. */
  async start(wakeUps: WakeUpConnection): Promise<void> {
    await registerNode(this.#pool, {
      id: this.nodeId,
      url: this.url,
      pid: process.pid,
      publicKey: this.#options.signer.publicKeyPem(),
      leaseMs: this.leaseMs,
      previousIncarnation: this.#options.previousIncarnation ?? null,
      logger: this.#options.logger,
    });
    await this.warnOfUntrustedKeys();
    await runPg(this.#pool, heartbeatProgram(this.nodeId, this.#status()));
    this.#profileWarnings.check(await this.nodes());
    this.#held.renewedNow();
    this.#wakeUps = await wakeUps.subscribe(wakeChannel, () => this.wake());
    // Renew at a third of the lease: two renewals may fail before a lease can expire.
    const pollMs = this.#options.pollMs ?? Math.max(250, Math.floor(this.leaseMs / 4));
    this.#timers.push(
      unstackedInterval(Math.max(200, Math.floor(this.leaseMs / 3)), () => this.#renew()),
      unstackedInterval(pollMs, () => this.wake()),
    );
    this.wake();
  }

  /** What readiness and metrics read of this node now (node-health.ts). */
  health(now = Date.now()): NodeHealth {
    const state = { stopped: this.#stopped, lastRenewal: this.#held.lastRenewal, leaseMs: this.leaseMs };
    return {
      notReady: notReadyReason(state, now),
      held: this.#held.size,
      takeovers: this.#orphans.takeovers,
    };
  }

  /** Whether this node holds the session now. */
  holds(sessionId: string): boolean {
    return this.#held.has(sessionId);
  }

  /** Who holds the session's lease (null: nobody ever did). */
  leaseOf(sessionId: string): Promise<LeaseRecord | null> {
    return runPg(this.#pool, leaseOfProgram(sessionId));
  }

  /** The epoch this node holds the session under now (undefined: it holds none). */
  heldEpoch(sessionId: string): number | undefined {
    return this.#held.epochOf(sessionId);
  }

  /**
   * Own the session before its actor loads: keep a lease this node holds, or take one nobody
   * holds live (a new epoch). The epoch the actor is to be loaded (and its writes fenced) under.
   * Throws `SessionOwnedElsewhereError` when another node holds it.
   */
  async acquire(sessionId: string): Promise<number> {
    // A release of this node's on its way to the database lands first: a claim read before it
    // would find the lease live and ours, and keep an epoch the release then ends.
    await this.#releasing.get(sessionId);
    if (this.#stopped) throw new WriteFencedError(sessionId, "the node is stopping");
    const held = this.#held.epochOf(sessionId);
    if (held !== undefined) return held;
    for (let attempt = 1; ; attempt++) {
      const epoch = await runPg(this.#pool, claimLeaseProgram(sessionId, this.nodeId, this.leaseMs));
      if (epoch !== null) {
        this.#held.hold(sessionId, epoch);
        this.#options.logger.info({ session_id: sessionId, epoch }, "session lease taken");
        return epoch;
      }
      const lease = await this.leaseOf(sessionId);
      // Ours already (a creation whose lease this node recorded, then forgot in a race): keep it.
      if (lease?.live && lease.node_id === this.nodeId) {
        this.#held.hold(sessionId, lease.epoch);
        return lease.epoch;
      }
      // Live when claimed, ended since (released or expired between the two reads): claim again.
      if (lease?.live === false && attempt < 3) continue;
      throw new SessionOwnedElsewhereError(sessionId, lease?.node_id ?? "unknown");
    }
  }

  /** Give the session up (its actor stopped); other nodes may claim it at once. */
  release(sessionId: string): Promise<void> {
    const epoch = this.#held.epochOf(sessionId);
    if (epoch === undefined) return this.#releasing.get(sessionId) ?? Promise.resolve();
    this.#held.drop(sessionId);
    const released = this.#releaseLease(sessionId, epoch).finally(() => {
      if (this.#releasing.get(sessionId) === released) this.#releasing.delete(sessionId);
    });
    this.#releasing.set(sessionId, released);
    return released;
  }

  async #releaseLease(sessionId: string, epoch: number): Promise<void> {
    await runPg(this.#pool, releaseLeaseProgram(sessionId, this.nodeId, epoch)).catch(() => undefined);
    // If work is waiting, whoever hears this claims it without waiting for a poll.
    await this.#pool.query("SELECT pg_notify($1, $2)", [wakeChannel, sessionId]).catch(() => undefined);
  }

  /**
   * The fence: the session's lease must still be this node's under `epoch`, the epoch the
   * writing actor was loaded under. Per actor, not per node: an actor of an older claim (the
   * node lost the session, then claimed it again) is refused even though the node holds the
   * lease, so a write it had queued never commits under the newer epoch. A refused write
   * stops the actor of that epoch; only when it is the epoch the node holds has the node lost
   * the session.
   */
  async check(client: pg.PoolClient, sessionId: string, epoch: number | undefined): Promise<void> {
    if (epoch === undefined) throw new WriteFencedError(sessionId, "this node holds no lease on it");
    const lease = await runPg(client, fenceProgram(sessionId));
    if (lease !== undefined && lease.node_id === this.nodeId && lease.epoch === epoch) return;
    const detail = `lease epoch ${epoch} was superseded by epoch ${lease?.epoch ?? "none"} of node ${lease?.node_id ?? "none"}`;
    // A takeover is the fence working, not a fault: warn, and say which write lost.
    this.#options.logger.warn(
      { session_id: sessionId, epoch, current: lease ?? null },
      `write fenced: ${detail}`,
    );
    this.noteError(`write fenced for session ${sessionId}: ${detail}`);
    if (this.#held.epochOf(sessionId) === epoch) this.#held.drop(sessionId);
    this.#options.lost(sessionId, epoch);
    throw new WriteFencedError(sessionId, detail);
  }

  /** A session created here: its lease is ours from the creating transaction on (the epoch returned). */
  async created(client: pg.PoolClient, sessionId: string): Promise<number> {
    const epoch = await runPg(client, createdLeaseProgram(sessionId, this.nodeId, this.leaseMs));
    // Held from inside the creating transaction, which may commit after a renewal has looked:
    // no renewal may count it lost for a lease's length (the lease it was created with).
    this.#held.hold(sessionId, epoch, Date.now() + this.leaseMs);
    return epoch;
  }

  /**
   * Another node refused a connection: nothing listens at its address, so the process is gone
   * (a live node that merely cannot be reached times out instead). Marking it stopped frees its
   * leases now rather than at their expiry; the fence keeps this safe even if it was wrong.
   */
  async nodeGone(nodeId: string): Promise<void> {
    if (nodeId === this.nodeId) return;
    if (await runPg(this.#pool, nodeGoneProgram(nodeId))) {
      this.#options.logger.warn(
        { node: nodeId },
        "a node refused connections; marked stopped, its sessions are free",
      );
      await this.#pool.query("SELECT pg_notify($1, 'scan')", [wakeChannel]).catch(() => undefined);
    }
  }

  /** Warn (once per key) of nodes whose head-signing key this node does not trust (untrusted-keys.ts). */
  warnOfUntrustedKeys(): Promise<void> {
    return this.#untrustedKeys.check(this.#pool);
  }

  /** The nodes as GET /cluster shows them (gone ones for `nodeHistoryMs`). */
  async nodes(): Promise<ClusterNodeView[]> {
    const rows: NodeRecord[] = await runPg(
      this.#pool,
      listNodesProgram(this.#options.nodeHistoryMs ?? 600_000),
    );
    const viewer = {
      nodeId: this.nodeId,
      leaseMs: this.leaseMs,
      trusts: (keyId: string) => this.#options.signer.trusts(keyId),
      profilesDigest: this.#profilesDigest(),
    };
    return rows.map((row) => nodeView(row, viewer));
  }

  /**
   * Remember an error for GET /cluster (published with the next heartbeat): what an operator
   * looks for first when a node misbehaves.
   */
  noteError(message: string): void {
    this.#lastError = { message: message.slice(0, 1_000), at: Date.now() };
  }

  #profilesDigest(): string | null {
    try {
      return this.#options.profilesDigest?.() ?? null;
    } catch {
      return null; // config.json unreadable: nothing to compare
    }
  }

  #status(): NodeStatus {
    return { lastError: this.#lastError, profilesDigest: this.#profilesDigest() };
  }

  /** Whether another node is live now (one that would take this node's sessions at once). */
  async othersLive(): Promise<boolean> {
    return (await this.nodes()).some((node) => node.live && !node.self);
  }

  /** Look for sessions with work and no live owner now (a NOTIFY arrived, or the poll). */
  wake(): void {
    this.#orphans.wake();
  }

  /** Stop: release every lease (others take the sessions at once), mark the node stopped. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    await this.#orphans.stop();
    for (const sessionId of this.#held.sessions()) await this.release(sessionId);
    await runPg(this.#pool, nodeStoppedProgram(this.nodeId)).catch(() => undefined);
    await this.#pool.query("SELECT pg_notify($1, 'scan')", [wakeChannel]).catch(() => undefined);
    this.#wakeUps?.unsubscribe();
  }

  async #renew(): Promise<void> {
    const startedAt = Date.now();
    try {
      if (await runPg(this.#pool, heartbeatProgram(this.nodeId, this.#status()))) {
        this.#options.logger.warn(
          { node: this.nodeId, url: this.url },
          "another node had marked this node stopped (it could not reach it at its URL; its sessions were free to take); registered again",
        );
      }
      await this.#held.renew(this.#pool, startedAt, (sessionId, epoch) => {
        // Routine in a cluster (another node took it while this one was away): the fence keeps it safe.
        this.#options.logger.info({ session_id: sessionId, epoch }, "session lease lost; dropping it");
        this.#options.lost(sessionId, epoch);
      });
      await this.warnOfUntrustedKeys();
      this.#profileWarnings.check(await this.nodes());
    } catch (error) {
      this.#options.logger.warn({ err: error }, "lease renewal failed");
      this.noteError(`lease renewal failed: ${(error as Error).message}`);
      // Past the lease, another node may own our sessions: drop them (the fence refuses their commits anyway).
      if (this.#held.expired())
        this.#held.dropAll((sessionId, epoch) => this.#options.lost(sessionId, epoch));
    }
  }
}
