/**
 * Who sends a request, decided from its headers alone: the token or a browser login's cookie,
 * the Host, the origin and, for a request signed in by cookie, its CSRF token. The first three
 * ingress checks of create-http-app.ts, shared by the request hook and the answers written
 * where Fastify never sees a request (raw-answer.ts), so a request Node cannot parse is judged
 * in the same order as one it can: 401, then 400/403 for Host, then 403 for the origin, and only
 * then how it is framed.
 *
 * Named tokens (and browser logins bound to one, and paired devices' cookies) are looked up in the
 * database on every request (`TokenLookup`), so a revoked token or device stops working at once on
 * every node of a cluster; only
 * `checkRequest` (the request hook) looks them up. `check`, for the heads Fastify never parses,
 * knows the bootstrap token (and logins bound to it) alone: such a request is malformed anyway,
 * and a named token there is answered 401 instead of the framing error.
 *
 * Boundary rule: decisions over header lines (the caller says how much of the head it could
 * read) and the token lookup; records nothing, answers nothing.
 */
import { csrfHeaderName, sessionCookieName } from "../../api/browser-login.js";
import { bootstrapTokenName } from "../../api/roles.js";
import { type BrowserLogins, type CookieLogin, cookieValue, csrfTokenMatches } from "./browser-logins.js";
import type { Credential, Principal } from "./credential.js";
import { authenticationRequired, problem } from "./problem.js";
import {
  allowedHosts,
  allowedOrigins,
  type BearerCheck,
  bearerSecret,
  browserRefusal,
  headerValues,
  publicAuthority,
} from "./request-guard.js";

/** Where named tokens are found: by the secret a request sends, and by name (a bound login). */
export interface TokenLookup {
  /** The token whose secret is `secret`, or null (unknown or revoked). */
  bySecret(secret: string): Promise<Principal | null>;
  /** The token named `name`, or null (revoked). */
  byName(name: string): Promise<Principal | null>;
  /** The paired device whose cookie is `cookieValue`, or null (unknown, revoked or expired). */
  byDeviceCookie(cookieValue: string): Promise<DeviceLogin | null>;
}

/** A paired device as a cookie proves it: who it acts as, and until when. */
interface DeviceLogin {
  principal: Principal;
  expiresAt: number;
}

/** The bootstrap token's principal: admin of every session. */
const bootstrapPrincipal: Principal = { name: bootstrapTokenName, role: "admin", sessionId: null };

/** The head of a request as far as it could be read. */
export interface ReadableHead {
  /** Header lines as Node's `rawHeaders`: name, value, name, value… */
  rawHeaders: readonly string[];
  /** The request method; null when the request line could not be read. */
  method: string | null;
  /**
   * True when the head was read from its first line: a header it lacks is absent. False for the
   * tail of a head (Node hands over only the bytes of the read that failed): a header it lacks
   * may have come earlier, so only what it shows is judged.
   */
  whole: boolean;
}

/** What the checks need to know about the daemon. */
export interface AuthorityOptions {
  bearer: BearerCheck;
  /** Named tokens; none: the bootstrap token only. */
  tokens?: TokenLookup | undefined;
  logins?: BrowserLogins | undefined;
  /** The port the daemon listens on (Host and origins name it). */
  port: () => number;
  /** More host names the Host header may name. */
  extraHosts?: readonly string[] | undefined;
  /** URLs that reach the daemon from elsewhere: their host (with their port) and origin are its own. */
  publicUrls?: readonly string[] | undefined;
}

const closing = { headers: { connection: "close" } };

/** The identity checks of every request, in the contract's order. */
export class RequestAuthority {
  readonly #options: AuthorityOptions;
  #selfFor: { port: number; hosts: Set<string>; origins: Set<string> } | null = null;

  constructor(options: AuthorityOptions) {
    this.#options = options;
  }

  /**
   * The credential of a request whose head passes, else throws the refusal as a ProblemError:
   * 401 authentication_required, 400 invalid_request (Host count), 403 host_forbidden, 403
   * origin_forbidden, 403 csrf_token_invalid. A public route accepts a request without a credential,
   * and a cookie's without its CSRF token.
   */
  check(head: ReadableHead, isPublic = false, named: Credential | null = null): Credential {
    const raw = head.rawHeaders;
    const port = this.#options.port();
    const credential = named ?? this.#authenticate(raw, port, isPublic);
    const { hosts, origins } = this.#self(port);
    const host = headerValues(raw, "host");
    if (host.length > 1 || (host.length === 0 && head.whole))
      throw problem("invalid_request", "a request must carry exactly one Host header", closing);
    if (host.length === 1 && !hosts.has(host[0]!.toLowerCase())) {
      throw problem(
        "host_forbidden",
        `the Host header must name this daemon: 127.0.0.1:${port}, localhost:${port}, or an address configured in SKEIN_HOST, SKEIN_NODE_URL or SKEIN_PUBLIC_URLS`,
        closing,
      );
    }
    const refusal = browserRefusal(raw, origins);
    if (refusal !== null) throw problem("origin_forbidden", refusal, closing);
    // A public route acts on no credential (a login or pairing link's post spends its code), so a
    // cookie the browser holds from an earlier login needs no CSRF token there.
    if (credential.kind === "cookie" && !isPublic && head.method !== "GET" && head.method !== "HEAD") {
      const sent = headerValues(raw, csrfHeaderName);
      if (sent.length !== 1 || !csrfTokenMatches(credential.login.cookieValue, sent[0])) {
        throw problem(
          "csrf_token_invalid",
          `a request signed in by cookie must send its login's ${csrfHeaderName} header (see GET /web/session)`,
        );
      }
    }
    return credential;
  }

  /** `check`, with named tokens and logins bound to them looked up first. */
  async checkRequest(head: ReadableHead, isPublic = false): Promise<Credential> {
    return this.check(head, isPublic, await this.#named(head.rawHeaders));
  }

  // A named token, or a login bound to one, that the request carries (looked up); else null.
  async #named(raw: readonly string[]): Promise<Credential | null> {
    const { tokens, bearer } = this.#options;
    if (tokens === undefined) return null;
    const authorization = headerValues(raw, "authorization");
    if (authorization.length === 1) {
      if (bearer.accepts(authorization[0])) return null;
      const secret = bearerSecret(authorization[0]!);
      const principal = secret === null ? null : await tokens.bySecret(secret);
      return principal === null ? null : { kind: "token", principal };
    }
    if (authorization.length > 0) return null;
    const login = this.#cookieLogin(raw, this.#options.port());
    if (login === null) return this.#device(raw, tokens);
    if (login.token === null) return null;
    const principal = await tokens.byName(login.token);
    return principal === null ? null : { kind: "cookie", login, principal };
  }

  // A paired device's cookie (in the database, so any node knows it), looked up; else null.
  async #device(raw: readonly string[], tokens: TokenLookup): Promise<Credential | null> {
    const value = cookieValue(headerValues(raw, "cookie"), sessionCookieName(this.#options.port()));
    const device = value === null ? null : await tokens.byDeviceCookie(value);
    if (value === null || device === null) return null;
    const login = {
      cookieValue: value,
      expiresAt: device.expiresAt,
      token: device.principal.name,
      device: true,
    };
    return { kind: "cookie", login, principal: device.principal };
  }

  // The bootstrap token, or a login bound to it when no Authorization header is sent; nothing on public routes.
  #authenticate(raw: readonly string[], port: number, isPublic: boolean): Credential {
    const authorization = headerValues(raw, "authorization");
    if (authorization.length === 0) {
      const login = this.#cookieLogin(raw, port);
      if (login !== null && login.token === null)
        return { kind: "cookie", login, principal: bootstrapPrincipal };
    }
    if (authorization.length === 1 && this.#options.bearer.accepts(authorization[0]))
      return { kind: "token", principal: bootstrapPrincipal };
    if (isPublic) return { kind: "none" };
    throw authenticationRequired();
  }

  #cookieLogin(raw: readonly string[], port: number): CookieLogin | null {
    const logins = this.#options.logins;
    if (logins === undefined) return null;
    const value = cookieValue(headerValues(raw, "cookie"), sessionCookieName(port));
    return value === null ? null : logins.check(value);
  }

  // Every request's Host check needs the accepted hosts: made once per port.
  #self(port: number): { hosts: Set<string>; origins: Set<string> } {
    if (this.#selfFor?.port !== port) {
      const hosts = allowedHosts(port, this.#options.extraHosts);
      const origins = allowedOrigins(hosts);
      for (const url of this.#options.publicUrls ?? []) {
        const authority = publicAuthority(url);
        for (const host of authority.hosts) hosts.add(host);
        origins.add(authority.origin);
      }
      this.#selfFor = { port, hosts, origins };
    }
    return this.#selfFor;
  }
}
