/**
 * The web UI and browser sign-in: `GET /` (the page) and `GET /assets/{file}` (its scripts and
 * styles), `POST /web/login-codes` (a one-time login link, for the bearer token; the link's own
 * routes are in login-route.ts), `GET /web/session` (the page's CSRF token) and `POST /web/logout`.
 *
 * Boundary rule: the page, its assets and the login link are public: they hold no data (the
 * page asks for everything it shows with the cookie). Every other route needs the token or the
 * cookie, as the ingress hook enforces.
 */
import type { FastifyReply } from "fastify";
import { Type } from "typebox";
import {
  type BrowserSession,
  type LoginLink,
  loginPath,
  sessionCookieName,
} from "../../api/browser-login.js";
import { bootstrapTokenName } from "../../api/roles.js";
import { BrowserSessionSchema, LoginLinkSchema } from "../../api/schemas/browser-login.js";
import type { BrowserLogins } from "../http/browser-logins.js";
import { csrfTokenOf } from "../http/browser-logins.js";
import type { HttpApp } from "../http/create-http-app.js";
import { credentialOf } from "../http/credential.js";
import { pageSecurityHeaders } from "../http/page-headers.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import type { StaticAssets, StaticFile } from "../http/static-assets.js";
import type { DeviceStore } from "../storage/device-store.js";
import { answerWith } from "./daemon-problem.js";
import { registerLoginRoute } from "./login-route.js";

/** What the web routes serve and sign in with. */
export interface WebRouteOptions {
  logins: BrowserLogins;
  /** The built UI, or null when it was not built (the page then answers 404 saying so). */
  assets: StaticAssets | null;
  /** The port the daemon listens on (the cookie's name carries it). */
  port(): number;
  /** How the daemon is reached (a login link names it): https with TLS or behind a TLS proxy. */
  scheme: "http" | "https";
  /** Paired devices: signing one out unpairs it (its cookie was its only credential). */
  devices: DeviceStore;
}

const noBody = (description: string) => Type.Null({ description });

/** Register the web UI's routes. */
export function registerWebRoutes(app: HttpApp, options: WebRouteOptions): void {
  registerPageRoutes(app, options);
  registerLoginCodeRoute(app, options);
  registerLoginRoute(app, options);
  registerBrowserSessionRoutes(app, options);
}

/** The page and its assets (public). */
function registerPageRoutes(app: HttpApp, options: WebRouteOptions): void {
  registerResource(app, "/", {
    GET: {
      schema: {
        response: {
          200: { description: "the web UI", content: { "text/html": { schema: Type.String() } } },
        },
      },
      config: {
        public: true,
        page: true,
        doc: {
          summary: "The web UI's page (public: it holds no data; it asks for everything with the cookie)",
        },
      },
      handler: async (_request, reply) => {
        if (options.assets === null) {
          throw problem("resource_not_found", "the web UI is not built; run `npm run build`");
        }
        return sendFile(reply, options.assets.index, "no-store");
      },
    },
  });

  registerResource(app, "/assets/:file", {
    GET: {
      schema: {
        params: Type.Object({ file: Type.String({ maxLength: 256 }) }),
        response: {
          200: {
            description: "a script, stylesheet or image of the page",
            content: { "*/*": { schema: Type.String({ contentEncoding: "binary" }) } },
          },
          304: noBody("not modified (If-None-Match)"),
        },
      },
      config: { public: true, page: true, doc: { summary: "A built asset of the web UI (public)" } },
      handler: async (request, reply) => {
        const { file } = request.params as { file: string };
        const asset = options.assets?.asset(file);
        if (asset === undefined) throw problem("resource_not_found", `no asset ${file}`);
        if (request.headers["if-none-match"] === asset.etag) {
          return reply.code(304).headers(pageSecurityHeaders).header("etag", asset.etag).send();
        }
        return sendFile(reply, asset, "public, max-age=31536000, immutable");
      },
    },
  });
}

/** A login link for the token (login-route.ts spends it). */
function registerLoginCodeRoute(app: HttpApp, options: WebRouteOptions): void {
  const { logins } = options;
  registerResource(app, "/web/login-codes", {
    POST: {
      schema: { response: { 201: LoginLinkSchema } },
      config: {
        role: "viewer",
        boundTokens: "unscoped",
        doc: {
          summary: "A one-time login link for a browser (bearer token only; `skein web` asks for it)",
          tokenOnly: true,
          description: "The link works once, within 2 minutes; a daemon restart voids links not yet used.",
        },
      },
      handler: async (request, reply) => {
        const credential = credentialOf(request.raw);
        if (credential.kind !== "token") {
          throw problem(
            "authentication_required",
            "login links are issued to the bearer token only (run `skein web`)",
          );
        }
        // The login acts as the token that asked for it: its role, its session, its revocation.
        const { name } = credential.principal;
        const { code, expiresAt } = logins.issueCode(name === bootstrapTokenName ? null : name);
        const link: LoginLink = {
          url: `${options.scheme}://${request.headers.host}${loginPath}?code=${code}`,
          expires_at: new Date(expiresAt).toISOString(),
        };
        return reply.code(201).send(link);
      },
    },
  });
}

/** How a browser is signed in (its CSRF token), and signing it out. */
function registerBrowserSessionRoutes(app: HttpApp, options: WebRouteOptions): void {
  const { logins } = options;
  registerResource(app, "/web/session", {
    GET: {
      schema: { response: { 200: BrowserSessionSchema } },
      config: {
        role: "viewer",
        boundTokens: "unscoped",
        doc: { summary: "How this request is signed in, and the login's CSRF token" },
      },
      handler: async (request): Promise<BrowserSession> => {
        const credential = credentialOf(request.raw);
        // The route needs a credential: `none` never reaches here, and would be a viewer at most.
        const { name, role } =
          credential.kind === "none" ? { name: "", role: "viewer" as const } : credential.principal;
        if (credential.kind !== "cookie")
          return { auth: "token", csrf_token: null, expires_at: null, name, role };
        return {
          auth: "cookie",
          csrf_token: csrfTokenOf(credential.login.cookieValue),
          expires_at: new Date(credential.login.expiresAt).toISOString(),
          name,
          role,
        };
      },
    },
  });

  registerResource(app, "/web/logout", {
    POST: {
      schema: { response: { 204: noBody("signed out: the login ends and the cookie is cleared") } },
      config: { role: "viewer", boundTokens: "unscoped", doc: { summary: "Sign this browser out" } },
      handler: async (request, reply) => {
        const credential = credentialOf(request.raw);
        if (credential.kind === "cookie") {
          const { login } = credential;
          if (login.device) await answerWith(() => options.devices.remove(credential.principal.name));
          else await logins.logout(login.cookieValue);
          reply.header(
            "set-cookie",
            `${sessionCookieName(options.port())}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`,
          );
        }
        return reply.code(204).send();
      },
    },
  });
}

function sendFile(reply: FastifyReply, file: StaticFile, cacheControl: string): FastifyReply {
  return reply
    .code(200)
    .headers(pageSecurityHeaders)
    .header("content-type", file.contentType)
    .header("cache-control", cacheControl)
    .header("etag", file.etag)
    .send(file.body);
}
