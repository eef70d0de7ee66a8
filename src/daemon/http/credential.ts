/**
 * What a request was authenticated with, as the ingress hook found it: a bearer token (the
 * bootstrap token or a named one), a browser login's cookie (bound to one of them), or nothing
 * on a public route; and the address it came from. Routes that depend on it (`GET
 * /web/session`, logout, the role check, who answered an approval) read it here.
 *
 * Boundary rule: a per-request record only; deciding is request-authority.ts's.
 */
import type { IncomingMessage } from "node:http";
import { bootstrapTokenName, type Role } from "../../api/roles.js";
import type { CookieLogin } from "./browser-logins.js";

/** Who a token (or a login bound to it) acts as. */
export interface Principal {
  /** The token's name: `bootstrap` for the daemon's own token. */
  name: string;
  role: Role;
  /** The one session the token may reach; null: every session. */
  sessionId: string | null;
}

/** How a request proved who sent it. */
export type Credential =
  | { kind: "token"; principal: Principal }
  | { kind: "cookie"; login: CookieLogin; principal: Principal }
  /** A public route (the page shell, its assets, the login link), reached without either. */
  | { kind: "none" };

/** Who sent a request and from where, as recorded with what it did (inputs, approval answers). */
export interface Sender {
  /** The token's name (`bootstrap` for the daemon's own), or null on a public route. */
  principal: string | null;
  /** The client's address: the peer's, or the one a trusted proxy forwarded (SKEIN_TRUST_PROXY). */
  address: string | null;
}

/** Set by a node that relays a request to the session's owner: the sender's token name and address. */
export const relayedByHeader = "x-skein-relayed-by";
export const relayedFromHeader = "x-skein-relayed-from";

interface RequestRecord {
  credential: Credential;
  sender: Sender;
}

const records = new WeakMap<IncomingMessage, RequestRecord>();

/**
 * Remember what `request` was authenticated with and who sent it from `address`. A request
 * relayed by another node of the cluster comes with the bootstrap token (only nodes hold it) and
 * names its sender in the relay headers: those are recorded instead.
 */
export function recordCredential(
  request: IncomingMessage,
  credential: Credential,
  address: string | null,
): void {
  const relayed = credential.kind === "token" && credential.principal.name === bootstrapTokenName;
  const by = relayed ? headerOf(request, relayedByHeader) : undefined;
  const from = relayed ? headerOf(request, relayedFromHeader) : undefined;
  const sender: Sender = {
    principal: by ?? (credential.kind === "none" ? null : credential.principal.name),
    address: from ?? address,
  };
  records.set(request, { credential, sender });
}

function headerOf(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** What `request` was authenticated with (`none` before the ingress hook ran). */
export function credentialOf(request: IncomingMessage): Credential {
  return records.get(request)?.credential ?? { kind: "none" };
}

/** Who sent `request` and from where. */
export function senderOf(request: IncomingMessage): Sender {
  return records.get(request)?.sender ?? { principal: null, address: null };
}
