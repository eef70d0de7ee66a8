/**
 * The outbox's delivery loop: every `pollMs` (and at once when poked after a commit that queued
 * something) it claims due rows for a lease, posts each to its webhook and settles it:
 * delivered rows are deleted, failed ones retried with backoff until `giveUpMs` after their
 * event, refused ones (a private address) given up at once. Rows outlive the daemon, so what
 * a crash or a restart interrupts is delivered later (at least once, with the same id).
 *
 * Boundary rule: the loop's lifetime and the settling decisions; the request is webhook-post.ts's,
 * the rows outbox-table.ts's.
 */
import { randomUUID } from "node:crypto";
import type { NotificationTarget } from "../../home/notification-config.js";
import { unreachable } from "../../model/unreachable.js";
import type { SessionLogger } from "../session/session-services.js";
import type { ClaimedNotification, NotificationSettlement } from "../storage/outbox-table.js";
import type { NotificationOutbox } from "../storage/session-storage.js";
import { type DeliverySettings, retryDelay } from "./delivery-settings.js";
import { type PostOutcome, postWebhook } from "./webhook-post.js";

/** Most rows claimed (and posted at once) per round. */
const batch = 16;

export class OutboxDeliverer {
  /** This loop's claims' owner (a new one per run: a restarted daemon never settles an old claim). */
  readonly #owner = `deliverer_${randomUUID()}`;
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(
    private readonly outbox: NotificationOutbox,
    private readonly targets: () => readonly NotificationTarget[],
    private readonly settings: DeliverySettings,
    private readonly logger: SessionLogger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Start looking for due rows (one round now, then every `pollMs`). */
  start(): void {
    this.poke();
  }

  /** Look for due rows now (a commit queued some). */
  poke(): void {
    if (this.#stopped) return;
    if (this.#round !== null) {
      this.#again = true;
      return;
    }
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    this.#round = this.#deliverDue()
      .catch((error: unknown) => this.logger.warn({ err: error }, "notification outbox round failed"))
      .finally(() => {
        this.#round = null;
        if (this.#stopped) return;
        if (this.#again) {
          this.#again = false;
          this.poke();
        } else this.#timer = setTimeout(() => this.poke(), this.settings.pollMs);
      });
  }

  /** Stop; resolves once the round under way (if any) has settled what it claimed. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    await this.#round;
  }

  async #deliverDue(): Promise<void> {
    for (;;) {
      const now = this.now();
      const claimed = await this.outbox.claim(this.#owner, now, now + this.settings.leaseMs, batch);
      if (claimed.length === 0) return;
      await Promise.all(claimed.map((row) => this.#deliver(row)));
      if (claimed.length < batch || this.#stopped) return;
    }
  }

  async #deliver(row: ClaimedNotification): Promise<void> {
    const target = this.targets().find((candidate) => candidate.url === row.targetUrl);
    const outcome: PostOutcome =
      target === undefined
        ? // Another node (or this one's next config) may know it: retried until given up.
          { kind: "failed", reason: "the webhook is not in this node's config.json" }
        : await postWebhook(target, row.id, row.body, this.settings.timeoutMs);
    const settlement = this.#settlement(row, outcome);
    const context = { event_id: row.id, event: row.event, session_id: row.sessionId, url: row.targetUrl };
    switch (settlement.kind) {
      case "delivered":
        this.logger.info({ ...context, attempts: row.attempts + 1 }, "notification delivered");
        break;
      case "retry":
        this.logger.warn(
          { ...context, reason: settlement.error, retry_at: settlement.at },
          "notification not delivered, will retry",
        );
        break;
      case "gave_up":
        this.logger.error({ ...context, reason: settlement.error }, "notification given up");
        break;
      default:
        unreachable(settlement, "unknown notification settlement");
    }
    await this.outbox.settle(row, this.#owner, settlement);
  }

  /** Given-up rows older than this are deleted with a give-up at `now`. */
  #forgetBefore(now: number): number {
    return now - this.settings.keepGivenUpMs;
  }

  #settlement(row: ClaimedNotification, outcome: PostOutcome): NotificationSettlement {
    const now = this.now();
    switch (outcome.kind) {
      case "delivered":
        return { kind: "delivered" };
      case "refused":
        return {
          kind: "gave_up",
          at: now,
          error: `not sent: ${outcome.reason}`,
          forgetBefore: this.#forgetBefore(now),
        };
      case "failed": {
        const at = now + retryDelay(this.settings, row.attempts);
        if (at - row.createdAt > this.settings.giveUpMs)
          return {
            kind: "gave_up",
            at: now,
            error: `${outcome.reason}; still failing ${this.settings.giveUpMs} ms after the event`,
            forgetBefore: this.#forgetBefore(now),
          };
        return { kind: "retry", at, error: outcome.reason };
      }
      default:
        return unreachable(outcome, "unknown webhook outcome");
    }
  }
}
