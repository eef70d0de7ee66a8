/** The outbox's delivery settings: the environment's overrides checked, the backoff doubling to its cap. */
import { describe, expect, it } from "vitest";
import { deliverySettingsFrom, retryDelay } from "../../../src/daemon/notify/delivery-settings.js";

describe("the webhook delivery settings", () => {
  it("doubles the wait from the first retry up to the cap, and keeps a claim past the request timeout", () => {
    const settings = deliverySettingsFrom({
      SKEIN_NOTIFY_RETRY_MS: "100",
      SKEIN_NOTIFY_RETRY_MAX_MS: "1000",
    });
    expect([0, 1, 2, 3, 4, 5, 60].map((attempts) => retryDelay(settings, attempts))).toEqual([
      100, 200, 400, 800, 1000, 1000, 1000,
    ]);
    expect(settings.leaseMs).toBeGreaterThan(settings.timeoutMs);
    const defaults = deliverySettingsFrom({});
    expect(defaults).toMatchObject({
      retryMs: 2_000,
      retryMaxMs: 600_000,
      giveUpMs: 86_400_000,
      keepGivenUpMs: 604_800_000,
    });
    expect(deliverySettingsFrom({ SKEIN_NOTIFY_KEEP_GIVEN_UP_MS: "60000" }).keepGivenUpMs).toBe(60_000);
  });

  it("refuses a setting that is not a whole number of milliseconds above 0, naming it", () => {
    for (const value of ["0", "-5", "1.5", "soon"]) {
      expect(() => deliverySettingsFrom({ SKEIN_NOTIFY_GIVE_UP_MS: value })).toThrow(
        `SKEIN_NOTIFY_GIVE_UP_MS=${JSON.stringify(value)} must be a whole number of milliseconds above 0`,
      );
    }
  });
});
