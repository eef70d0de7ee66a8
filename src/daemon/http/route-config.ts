/**
 * Per-route settings the ingress hooks read from a route's `config`.
 *
 * Boundary rule: declarations only. Routes opt into behaviour here instead of repeating checks
 * in handlers: which query parameters they take, whether they can answer text/event-stream,
 * whether they start work (and so are refused while the daemon drains).
 */
import type { Role } from "../../api/roles.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Query parameter names this route accepts; default: its querystring schema's properties. */
    query?: readonly string[];
    /** The route can answer `Accept: text/event-stream` (see wantsEventStream). */
    eventStream?: boolean;
    /** The route starts work (a turn, a session): 503 daemon_unavailable while draining. */
    startsWork?: boolean;
    /** Set on the 405 placeholders registerResource adds: the methods the path does allow. */
    allow?: string;
    /**
     * Reachable without the token or a login cookie: only for routes that hold no data (the web
     * page's shell and assets, the login link itself). Host and origin are still checked.
     */
    public?: boolean;
    /** Answers a browser's page or asset (not JSON): the Accept check is left to the route. */
    page?: boolean;
    /**
     * Takes a browser's form post with no fields (`application/x-www-form-urlencoded`, empty
     * body) besides JSON: a page's button that changes state without any script.
     */
    emptyFormPost?: boolean;
    /**
     * The least role that may call the route (src/api/roles.ts). A route that declares none needs
     * admin, so a new route is closed to lesser tokens until someone decides otherwise.
     */
    role?: Role;
    /**
     * For a token bound to one session: routes under `/sessions/{id}` check the id themselves;
     * any other route refuses such a token unless it says `unscoped` (it holds no session's
     * data, e.g. `GET /server`) or `filtered` (its handler shows the bound session only).
     */
    boundTokens?: "unscoped" | "filtered";
    /** What the OpenAPI document says of the route (openapi-document.ts); every route has one. */
    doc?: RouteDoc;
  }
}

/** A route's words in the OpenAPI document; its parameters, body and answers come from its schemas. */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** Only the bearer token may call it (a browser's cookie is refused). */
  tokenOnly?: boolean;
  /** Request headers the route reads besides the common ones (e.g. `If-None-Match`). */
  headers?: ReadonlyArray<{ name: string; description: string; required?: boolean }>;
}

/** Default request body limit (bytes). */
export const defaultBodyLimit = 64 * 1024;
/** Body limit for routes that take inputs (prompts): pass as the route's `bodyLimit`. */
export const inputBodyLimit = 8 * 1024 * 1024;
