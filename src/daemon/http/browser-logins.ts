/**
 * Browser sign-in: one-time login codes, the logins they turn into (one per browser, carried
 * by an HttpOnly cookie) and the CSRF token of each login.
 *
 * Boundary rule: secrets and their checks only; the ingress hook asks `authenticate`, the web
 * routes issue and redeem codes, and a `LoginStore` keeps the logins across restarts. Neither
 * a code nor a cookie value is kept: only their SHA-256 digests, so a copy of the store or of
 * the daemon's memory signs nobody in. Codes live in memory only (a restart voids them); a
 * code works once and for `codeLifetimeMs`. The CSRF token is an HMAC of the cookie value, so
 * only someone who holds the cookie (the browser, which never shows it to a page) or was told
 * the token by the daemon (the page, through `GET /web/session`) can send it.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { secretDigest } from "./token-secret.js";

/** One login as a LoginStore keeps it. */
export interface StoredLogin {
  /** SHA-256 (hex) of the cookie value. */
  hash: string;
  created_at: string;
  expires_at: string;
  /** The named token the login acts as (its role and session); absent: the bootstrap token. */
  token?: string;
}

/** Where logins survive a restart of the daemon. */
export interface LoginStore {
  load(): StoredLogin[];
  save(logins: readonly StoredLogin[]): Promise<void>;
}

/** A login a code was redeemed for: the cookie value to set and when it ends. */
export interface NewLogin {
  cookieValue: string;
  expiresAt: number;
}

/** What a valid cookie proves. */
export interface CookieLogin {
  cookieValue: string;
  expiresAt: number;
  /** The named token the login is bound to (revoking it ends the login); null: the bootstrap token. */
  token: string | null;
  /** True for a paired device's cookie (kept in the database, not by this node): `token` names the device. */
  device: boolean;
}

/** An unredeemed code: when it expires and which token the login it becomes acts as. */
interface PendingCode {
  expiresAt: number;
  token: string | null;
}

/** How long a login code works (ms). */
export const codeLifetimeMs = 2 * 60_000;
/** How long a login lasts (ms). */
const loginLifetimeMs = 7 * 24 * 60 * 60_000;
/** At most this many unredeemed codes are kept; issuing another drops the oldest. */
const maxCodes = 16;
/** At most this many logins are kept; a new one drops the oldest. */
const maxLogins = 64;

/** The daemon's login codes and logins. */
export class BrowserLogins {
  readonly #codes = new Map<string, PendingCode>();
  readonly #logins = new Map<string, StoredLogin>();

  constructor(
    private readonly store: LoginStore,
    private readonly now: () => number = Date.now,
  ) {
    for (const login of store.load()) {
      if (Date.parse(login.expires_at) > this.now()) this.#logins.set(login.hash, login);
    }
  }

  /** A new one-time code and when it expires; its login acts as `token` (null: the bootstrap token). */
  issueCode(token: string | null): { code: string; expiresAt: number } {
    const code = randomBytes(32).toString("base64url");
    const expiresAt = this.now() + codeLifetimeMs;
    this.#dropExpiredCodes();
    while (this.#codes.size >= maxCodes) this.#codes.delete(this.#codes.keys().next().value as string);
    this.#codes.set(secretDigest(code), { expiresAt, token });
    return { code, expiresAt };
  }

  /** Spend `code` on a new login (stored before it is returned), or null when it is unknown, used or expired. */
  async redeem(code: string): Promise<NewLogin | null> {
    const key = secretDigest(code);
    const pending = this.#codes.get(key);
    this.#codes.delete(key);
    if (pending === undefined || pending.expiresAt <= this.now()) return null;
    const cookieValue = randomBytes(32).toString("base64url");
    const created = this.now();
    const login: StoredLogin = {
      hash: secretDigest(cookieValue),
      created_at: new Date(created).toISOString(),
      expires_at: new Date(created + loginLifetimeMs).toISOString(),
      ...(pending.token === null ? {} : { token: pending.token }),
    };
    this.#dropExpiredLogins();
    while (this.#logins.size >= maxLogins) this.#logins.delete(this.#logins.keys().next().value as string);
    this.#logins.set(login.hash, login);
    await this.#save();
    return { cookieValue, expiresAt: created + loginLifetimeMs };
  }

  /** The login `cookieValue` belongs to, or null when it is unknown, logged out or expired. */
  check(cookieValue: string): CookieLogin | null {
    const login = this.#logins.get(secretDigest(cookieValue));
    if (login === undefined) return null;
    const expiresAt = Date.parse(login.expires_at);
    return expiresAt > this.now()
      ? { cookieValue, expiresAt, token: login.token ?? null, device: false }
      : null;
  }

  /** End the login of `cookieValue` (nothing happens for an unknown one). */
  async logout(cookieValue: string): Promise<void> {
    if (this.#logins.delete(secretDigest(cookieValue))) await this.#save();
  }

  async #save(): Promise<void> {
    await this.store.save([...this.#logins.values()]);
  }

  #dropExpiredCodes(): void {
    const now = this.now();
    for (const [key, pending] of this.#codes) if (pending.expiresAt <= now) this.#codes.delete(key);
  }

  #dropExpiredLogins(): void {
    const now = this.now();
    for (const [key, login] of this.#logins)
      if (Date.parse(login.expires_at) <= now) this.#logins.delete(key);
  }
}

/** The CSRF token of a login: what its page must send in `X-Skein-CSRF`. */
export function csrfTokenOf(cookieValue: string): string {
  return createHmac("sha256", cookieValue).update("skein csrf token").digest("base64url");
}

/** Whether `sent` is the CSRF token of the login `cookieValue` (constant time). */
export function csrfTokenMatches(cookieValue: string, sent: string | undefined): boolean {
  const expected = Buffer.from(csrfTokenOf(cookieValue));
  const given = Buffer.from(sent ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The value of cookie `name` in a request's Cookie header(s), or null (also when it is repeated). */
export function cookieValue(cookieHeaders: readonly string[], name: string): string | null {
  const found: string[] = [];
  for (const header of cookieHeaders) {
    for (const pair of header.split(";")) {
      const equals = pair.indexOf("=");
      if (equals < 0 || pair.slice(0, equals).trim() !== name) continue;
      found.push(pair.slice(equals + 1).trim());
    }
  }
  return found.length === 1 ? found[0]! : null;
}
