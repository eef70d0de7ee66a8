/**
 * One webhook delivery: a POST of the stored body, signed (`X-Skein-Signature: sha256=<hex
 * HMAC-SHA256 of the body>`) and named (`X-Skein-Event-Id`), over a connection whose address
 * was checked when it was made. Unless the target allows private addresses, the address
 * connected to must be public: a literal address is judged before connecting, a name at the
 * moment it is resolved for this connection (so a name that resolves to a public address once
 * and a private one later, DNS rebinding, is judged on the address actually used).
 *
 * Boundary rule: one request, its outcome as data; retries are the deliverer's.
 */
import { createHmac } from "node:crypto";
import { type LookupAddress, lookup } from "node:dns";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { networkInterfaces } from "node:os";
import type { NotificationTarget } from "../../home/notification-config.js";
import { AddressAllowList, addressProblem } from "../../tools/fetch-address.js";

/** What one delivery attempt came to. */
export type PostOutcome =
  | { kind: "delivered"; status: number }
  /** Worth trying again later: the receiver was down, slow or answered other than 2xx. */
  | { kind: "failed"; reason: string }
  /** Never to be sent: the target's address is refused. */
  | { kind: "refused"; reason: string };

/** The signature header's value for `body` under `secret`. */
function signatureOf(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** A refused connection address, with why. */
class AddressRefusedError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "AddressRefusedError";
  }
}

const noneAllowed = new AddressAllowList([]);

/** The reason `address` may not be connected to, or null. */
function refusal(address: string): string | null {
  const own = new Set(
    Object.values(networkInterfaces())
      .flat()
      .flatMap((info) => (info === undefined ? [] : [info.address])),
  );
  const problem = addressProblem(address, own, noneAllowed);
  return problem === null
    ? null
    : `${address} is ${problem} (set "allowPrivate": true on the webhook to allow it)`;
}

/** A resolver for one connection that keeps only allowed addresses, and fails when none is left. */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error !== null) return callback(error, "", 4);
    const allowed = addresses.filter((entry) => refusal(entry.address) === null);
    const first = allowed[0];
    if (first === undefined) {
      const why = addresses[0] === undefined ? "no address" : refusal(addresses[0].address);
      return callback(new AddressRefusedError(`${hostname}: ${why}`), "", 4);
    }
    if (options.all === true) return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
    return callback(null, first.address, first.family);
  });
};

/** POST `body` to `target` (signed, named `eventId`); resolves with the outcome, never rejects. */
export function postWebhook(
  target: NotificationTarget,
  eventId: string,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const guarded = target.allowPrivate !== true;
  if (guarded && isIP(host) !== 0) {
    const why = refusal(host);
    if (why !== null) return Promise.resolve({ kind: "refused", reason: why });
  }
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: "POST",
        timeout: timeoutMs,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": "skein-webhook",
          "x-skein-event-id": eventId,
          "x-skein-signature": signatureOf(body, target.secret),
        },
        ...(guarded ? { lookup: checkedLookup } : {}),
      },
      (response) => {
        response.resume();
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          resolve(
            status >= 200 && status < 300
              ? { kind: "delivered", status }
              : { kind: "failed", reason: `the receiver answered ${status}` },
          );
        });
        response.on("error", (error) => resolve({ kind: "failed", reason: error.message }));
      },
    );
    request.on("timeout", () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    request.on("error", (error) =>
      resolve(
        error instanceof AddressRefusedError
          ? { kind: "refused", reason: error.reason }
          : { kind: "failed", reason: error.message },
      ),
    );
    request.end(body);
  });
}
