/**
 * Retention: config.json's `retention` policy applied to the sessions of the database, in the
 * background every `intervalMinutes` and on demand (`POST /gc`, `skein gc`). A session idle for
 * `deleteIdleDays` is deleted whole (its rows, its log, its workspace checkpoints here); a
 * session whose log takes more than `aboveBytes` keeps only its last `keepEntries` entries,
 * never cut after its latest compaction (log/prune-plan.ts), and the cut is recorded in the
 * chain as a `pruned` entry (log/pruned-log.ts).
 *
 * Boundary rule: never touches a session that is loaded on this node (running, waiting for an
 * approval, watched, or merely recent), that has a pending input or a running turn, that waits
 * for an approval, or whose lease another node holds. While it works on a session, this node's
 * loads of it wait (`SessionRegistry.holdLoads`), it holds the session's lease in a cluster,
 * and its writes pass the fence; a prune is a compare-and-append on the head it planned from,
 * in the same transaction as the rows it removes, so it never races an append.
 */
import type { GcReport } from "../../api/retention.js";
import type { RetentionConfig } from "../../home/retention-config.js";
import { collectState } from "../../log/collect-state.js";
import type { PrunePolicy } from "../../log/entries.js";
import { planPrune } from "../../log/prune-plan.js";
import type { SessionServices } from "../session/session-services.js";
import type { RetentionCandidate } from "../storage/retention-table.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { SessionRegistry } from "./session-registry.js";

const dayMs = 86_400_000;
const minuteMs = 60_000;

/** What retention needs: the sessions, the policy as config.json says now, and who hears of each run. */
export interface RetentionOptions {
  registry: SessionRegistry;
  services: SessionServices;
  policy: () => RetentionConfig | undefined;
  /** Told of every run that removed something, dry runs excluded (metrics). */
  removed?: (report: GcReport) => void;
}

type Policy = NonNullable<GcReport["policy"]>;

/** What retention does with one session. */
type Outcome =
  | { kind: "deleted"; entries: number; bytes: number }
  | {
      kind: "pruned";
      upTo: number;
      entries: number;
      bytes: number;
      apply: (storage: SessionStorage) => Promise<unknown>;
    }
  | { kind: "skipped"; reason: string };

export class SessionRetention {
  readonly #options: RetentionOptions;
  #last: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: RetentionOptions) {
    this.#options = options;
  }

  /** Apply the policy now (one run at a time: a run asked for during another starts after it). */
  run(dryRun: boolean): Promise<GcReport> {
    const run = this.#last.then(() => this.#runOnce(dryRun));
    this.#last = run.catch(() => undefined);
    return run;
  }

  /** Run in the background every `intervalMinutes` (re-read each time; every minute while no policy is set). */
  start(): void {
    const schedule = (): void => {
      if (this.#stopped) return;
      const policy = this.#options.policy();
      const minutes = policy === undefined ? 1 : (policy.intervalMinutes ?? 60);
      this.#timer = setTimeout(() => {
        if (this.#options.policy() === undefined) return schedule();
        this.run(false)
          .catch((error: unknown) =>
            this.#options.services.logger.error({ err: error }, "retention run failed"),
          )
          .finally(schedule);
      }, minutes * minuteMs);
      this.#timer.unref();
    };
    schedule();
  }

  /** Stop the background runs; a run under way ends after the session it is at (resolves then). */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    await this.#last;
  }

  async #runOnce(dryRun: boolean): Promise<GcReport> {
    const { services } = this.#options;
    const started = services.now();
    const policy = policyOf(this.#options.policy());
    const report: GcReport = {
      dry_run: dryRun,
      policy,
      deleted: [],
      pruned: [],
      skipped: [],
      bytes_freed: 0,
      duration_ms: 0,
    };
    if (policy === null) return report;
    const idleBefore = policy.delete_idle_days === null ? null : started - policy.delete_idle_days * dayMs;
    const aboveBytes = policy.keep_entries === null ? null : policy.above_bytes;
    for (const candidate of await services.storage.retentionCandidates(idleBefore, aboveBytes)) {
      // A daemon that drains does not wait for the rest: the next run takes them.
      if (this.#stopped) break;
      const idle = idleBefore !== null && candidate.activityAt < idleBefore;
      const outcome = await this.#apply(candidate, idle, policy, dryRun);
      const session_id = candidate.id;
      if (outcome.kind === "skipped") report.skipped.push({ session_id, reason: outcome.reason });
      else if (outcome.kind === "deleted")
        report.deleted.push({ session_id, entries: outcome.entries, bytes: outcome.bytes });
      else
        report.pruned.push({
          session_id,
          up_to: outcome.upTo,
          entries: outcome.entries,
          bytes: outcome.bytes,
        });
      if (outcome.kind !== "skipped") report.bytes_freed += outcome.bytes;
    }
    report.duration_ms = Math.max(0, services.now() - started);
    if (!dryRun && report.deleted.length + report.pruned.length > 0) {
      services.logger.info(
        { deleted: report.deleted.length, pruned: report.pruned.length, bytes: report.bytes_freed },
        "retention removed old sessions and entries",
      );
      this.#options.removed?.(report);
    }
    return report;
  }

  /** Decide (and, unless dry, do) what the policy says of one session, holding its loads and its lease meanwhile. */
  async #apply(
    candidate: RetentionCandidate,
    idle: boolean,
    policy: Policy,
    dryRun: boolean,
  ): Promise<Outcome> {
    const { registry, services } = this.#options;
    const id = candidate.id;
    if (registry.loaded(id) !== undefined) return skipped("loaded on this node");
    if (dryRun) return this.#decide(services.storage, candidate, idle, policy).catch(skippedFor);
    let release = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      release = resolve;
    });
    if (!registry.holdLoads(id, done)) return skipped("loaded on this node");
    const ownership = services.ownership;
    let epoch: number | null = null;
    try {
      epoch = ownership === undefined ? null : await ownership.acquire(id);
    } catch (error) {
      release();
      return skipped(`its lease is held by another node (${(error as Error).message})`);
    }
    try {
      const storage = epoch === null ? services.storage : services.storage.forLease(epoch);
      const outcome = await this.#decide(storage, candidate, idle, policy);
      if (outcome.kind === "deleted") {
        await storage.deleteSession(id);
        registry.forget(id, candidate.parentId);
        services.logger.info({ session_id: id, bytes: outcome.bytes }, "retention deleted an idle session");
      } else if (outcome.kind === "pruned") {
        await outcome.apply(storage);
        services.logger.info(
          { session_id: id, up_to: outcome.upTo, bytes: outcome.bytes },
          "retention pruned a session's log",
        );
      }
      return outcome;
    } catch (error) {
      return skippedFor(error);
    } finally {
      if (ownership !== undefined && epoch !== null) await ownership.release(id).catch(() => undefined);
      release();
    }
  }

  /** What to do with the session, from its verified log (reads only). */
  async #decide(
    storage: SessionStorage,
    candidate: RetentionCandidate,
    idle: boolean,
    policy: Policy,
  ): Promise<Outcome> {
    const entries = await storage.readLog(candidate.id);
    if (collectState(entries).pending_approvals.length > 0) return skipped("waiting for an approval");
    if (idle) return { kind: "deleted", entries: candidate.entries, bytes: candidate.bytes };
    if (policy.keep_entries === null) return skipped("not idle long enough");
    const rule: PrunePolicy = { keep_entries: policy.keep_entries, above_bytes: policy.above_bytes };
    const decision = planPrune(entries, rule, this.#options.services.now());
    if (decision.kind === "keep") return skipped(decision.reason);
    const { plan } = decision;
    const head = entries[entries.length - 1]!.hash;
    return {
      kind: "pruned",
      upTo: plan.upTo,
      entries: plan.entries,
      bytes: plan.bytes,
      apply: (target) => target.pruneLog(candidate.id, head, plan.entry),
    };
  }
}

/** config.json's policy with its defaults, as the report shows it; null when none is set. */
function policyOf(config: RetentionConfig | undefined): Policy | null {
  if (config === undefined) return null;
  return {
    delete_idle_days: config.deleteIdleDays ?? null,
    keep_entries: config.keepEntries ?? null,
    above_bytes: config.aboveBytes ?? 0,
    interval_minutes: config.intervalMinutes ?? 60,
  };
}

function skipped(reason: string): Outcome {
  return { kind: "skipped", reason };
}

function skippedFor(error: unknown): Outcome {
  return skipped(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}
