/**
 * Per-route settings the ingress hooks read from a route's `config`.
 *
 * Boundary rule: declarations only. Routes opt into behaviour here instead of repeating checks
 * in handlers: which query parameters they take, whether they can answer text/event-stream,
 * whether they start work (and so are refused while the daemon drains).
 */
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
  }
}

/** Default request body limit (bytes). */
export const defaultBodyLimit = 64 * 1024;
/** Body limit for routes that take inputs (prompts): pass as the route's `bodyLimit`. */
export const inputBodyLimit = 8 * 1024 * 1024;
