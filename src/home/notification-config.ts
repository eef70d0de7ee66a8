/**
 * The `notifications` section of config.json: webhooks the daemon calls when something a
 * person may want to hear of happens in a session, e.g.
 * `[{"url": "https://ntfy.example/skein", "events": ["approval_requested"], "secret": "…"}]`.
 * `allowPrivate: true` lets an entry reach loopback, private and link-local addresses (refused
 * by default, checked on the address connected to). Each URL appears once: a queued delivery
 * finds its entry (and so its secret) by URL.
 *
 * Boundary rule: the section's format only; delivery is daemon/notify's.
 */

/** The events a webhook may subscribe to (`task_completed`: a subagent's task ended). */
export const notificationEvents = [
  "approval_requested",
  "question",
  "turn_completed",
  "turn_failed",
  "task_completed",
] as const;

/** One event a webhook may subscribe to. */
export type NotificationEvent = (typeof notificationEvents)[number];

/** One webhook as config.json holds it. */
export interface NotificationTarget {
  url: string;
  events: NotificationEvent[];
  /** The HMAC-SHA256 key of the `X-Skein-Signature` header. */
  secret: string;
  allowPrivate?: boolean;
}

const knownKeys = ["url", "events", "secret", "allowPrivate"];

/** Validates the `notifications` value; `fail` throws with the reason. */
export function parseNotificationsConfig(
  value: unknown,
  fail: (reason: string) => never,
): NotificationTarget[] {
  if (!Array.isArray(value)) fail(`"notifications" must be an array of webhooks`);
  const targets = (value as unknown[]).map((entry, index) =>
    parseTarget(entry, `notifications[${index}]`, fail),
  );
  const seen = new Set<string>();
  for (const [index, target] of targets.entries()) {
    if (seen.has(target.url)) fail(`"notifications[${index}].url" ${target.url} is listed twice`);
    seen.add(target.url);
  }
  return targets;
}

function parseTarget(value: unknown, where: string, fail: (reason: string) => never): NotificationTarget {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(`"${where}" must be an object`);
  const record = value as Record<string, unknown>;
  const unknownKey = Object.keys(record).find((key) => !knownKeys.includes(key));
  if (unknownKey !== undefined)
    fail(`"${where}" has unknown key "${unknownKey}" (known: ${knownKeys.join(", ")})`);
  const url = parseUrl(record.url, where, fail);
  const { secret, allowPrivate } = record;
  if (typeof secret !== "string" || secret.length === 0)
    fail(`"${where}.secret" is missing: each webhook needs a secret to sign its deliveries with`);
  if (allowPrivate !== undefined && typeof allowPrivate !== "boolean")
    fail(`"${where}.allowPrivate" must be true or false`);
  return {
    url,
    events: parseEvents(record.events, where, fail),
    secret: secret as string,
    ...(allowPrivate === undefined ? {} : { allowPrivate: allowPrivate as boolean }),
  };
}

function parseUrl(value: unknown, where: string, fail: (reason: string) => never): string {
  if (typeof value !== "string") fail(`"${where}.url" must be an http(s) URL`);
  let url: URL;
  try {
    url = new URL(value as string);
  } catch {
    return fail(`"${where}.url" ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    fail(`"${where}.url" must use http or https, not ${url.protocol.slice(0, -1)}`);
  if (url.username !== "" || url.password !== "")
    fail(`"${where}.url" must not carry credentials (sign with "secret" instead)`);
  return value as string;
}

function parseEvents(value: unknown, where: string, fail: (reason: string) => never): NotificationEvent[] {
  if (!Array.isArray(value) || value.length === 0)
    fail(`"${where}.events" must list at least one of ${notificationEvents.join(", ")}`);
  const events: NotificationEvent[] = [];
  for (const event of value as unknown[]) {
    if (!isNotificationEvent(event))
      fail(
        `"${where}.events" has unknown event ${JSON.stringify(event)} (known: ${notificationEvents.join(", ")})`,
      );
    if (!events.includes(event as NotificationEvent)) events.push(event as NotificationEvent);
  }
  return events;
}

function isNotificationEvent(value: unknown): value is NotificationEvent {
  return typeof value === "string" && (notificationEvents as readonly string[]).includes(value);
}
