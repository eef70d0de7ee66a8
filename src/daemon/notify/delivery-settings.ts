/**
 * How the outbox is delivered: the retry backoff (doubling from `retryMs` up to `retryMaxMs`),
 * when a delivery is given up (`giveUpMs` after its event), how long a given-up row is kept for
 * a look (`keepGivenUpMs`), how long a claim lasts and a request may take. The environment may
 * change them (tests need seconds, not minutes): `SKEIN_NOTIFY_RETRY_MS`,
 * `SKEIN_NOTIFY_RETRY_MAX_MS`, `SKEIN_NOTIFY_GIVE_UP_MS`, `SKEIN_NOTIFY_KEEP_GIVEN_UP_MS`,
 * `SKEIN_NOTIFY_TIMEOUT_MS` (a claim lasts the timeout plus 5 s).
 *
 * Boundary rule: the settings and the backoff arithmetic only.
 */

export interface DeliverySettings {
  retryMs: number;
  retryMaxMs: number;
  giveUpMs: number;
  /** A given-up row older than this is deleted when another is given up. */
  keepGivenUpMs: number;
  leaseMs: number;
  timeoutMs: number;
}

/** The defaults: 2 s doubling to 10 min, given up after 24 h, a given-up row kept 7 days. */
const defaults: DeliverySettings = {
  retryMs: 2_000,
  retryMaxMs: 600_000,
  giveUpMs: 86_400_000,
  keepGivenUpMs: 604_800_000,
  leaseMs: 15_000,
  timeoutMs: 10_000,
};

/** A setting of the environment is not a whole number of milliseconds above 0. */
class DeliverySettingError extends Error {
  constructor(
    readonly variable: string,
    readonly value: string,
  ) {
    super(`${variable}=${JSON.stringify(value)} must be a whole number of milliseconds above 0`);
    this.name = "DeliverySettingError";
  }
}

/** The settings `env` asks for over the defaults; throws DeliverySettingError for a bad one. */
export function deliverySettingsFrom(env: NodeJS.ProcessEnv): DeliverySettings {
  const read = (variable: string, fallback: number): number => {
    const text = env[variable];
    if (text === undefined || text === "") return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value <= 0) throw new DeliverySettingError(variable, text);
    return value;
  };
  const retryMs = read("SKEIN_NOTIFY_RETRY_MS", defaults.retryMs);
  const timeoutMs = read("SKEIN_NOTIFY_TIMEOUT_MS", defaults.timeoutMs);
  return {
    ...defaults,
    timeoutMs,
    // A claim outlasts its request: a crashed node's claims are taken over once it has lapsed.
    leaseMs: timeoutMs + 5_000,
    retryMs,
    retryMaxMs: Math.max(retryMs, read("SKEIN_NOTIFY_RETRY_MAX_MS", defaults.retryMaxMs)),
    giveUpMs: read("SKEIN_NOTIFY_GIVE_UP_MS", defaults.giveUpMs),
    keepGivenUpMs: read("SKEIN_NOTIFY_KEEP_GIVEN_UP_MS", defaults.keepGivenUpMs),
  };
}

/** The wait before the attempt after `attempts` failed ones: doubling, capped. */
export function retryDelay(settings: DeliverySettings, attempts: number): number {
  return Math.min(settings.retryMaxMs, settings.retryMs * 2 ** Math.min(attempts, 30));
}
