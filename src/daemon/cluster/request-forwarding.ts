/**
 * Any node answers any request: a request about a session whose live lease another node holds
 * is relayed to that node over an internal connection authenticated with the cluster's shared
 * token, and the answer (a JSON body or an SSE stream, byte for byte) is relayed back. So
 * snapshots, streams, inputs, interrupts and cancels on any node see exactly what the owner
 * produces — the same events, the same `id:` cursors — and there is one writer per session.
 *
 * Boundary rule: the request has passed this node's ingress checks (token or cookie, Host,
 * origin, body limits, validation) before it is relayed; the relay carries the token, not the
 * caller's credentials. A relayed request is never relayed again (`x-skein-forwarded-by`): the
 * receiving node answers it itself, so two nodes with different views cannot bounce a request.
 * An owner that refuses the connection is gone (nothing listens at its address): it is marked
 * stopped, which frees its sessions, and the request is answered here (this node claims the
 * session, recovering it as after a crash). An owner that does not answer in time is answered
 * 503 with Retry-After, as storage trouble is: it may be alive, and its lease decides. A relayed
 * stream on which the owner goes silent (no keepalive: a partition) is ended, and so is every
 * relayed answer when this node drains, so their clients resume on a node that can serve them.
 */
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { HttpApp } from "../http/create-http-app.js";
import { relayedByHeader, relayedFromHeader, type Sender, senderOf } from "../http/credential.js";
import { problem } from "../http/problem.js";
import { answerWith } from "../routes/daemon-problem.js";
import { DEFAULT_KEEPALIVE_MS } from "../stream/sse-stream.js";
import type { RequestSpan, Tracing } from "../telemetry/tracing.js";
import type { ClusterNode } from "./cluster-node.js";

/** Marks a relayed request, with the id of the node that relayed it. */
export const forwardedHeader = "x-skein-forwarded-by";

// Hop-by-hop headers and the caller's own credentials and browser context stay behind.
const droppedHeaders = new Set([
  "host",
  "authorization",
  "cookie",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "origin",
  "referer",
  "sec-fetch-site",
  "sec-fetch-mode",
  "sec-fetch-dest",
  "x-csrf-token",
  relayedByHeader,
  relayedFromHeader,
]);

const sessionPath = /^\/sessions\/([^/?#]+)/;

/** How long a relay waits for the owner to accept the connection. */
const relayConnectMs = 3_000;

/** A relayed answer with no byte for this long is ended: three of the owner's stream keepalives. */
const relayIdleMs = 3 * DEFAULT_KEEPALIVE_MS;

/** The relays in progress through this node, ended when it drains. */
export interface Relays {
  /** End every relayed answer now (its client reconnects, to another node) and relay no new stream. */
  closeAll(): void;
}

/** Relay requests about sessions owned by other nodes to their owner. */
export function registerForwarding(
  app: HttpApp,
  options: { node: ClusterNode; token: string; tracing?: Tracing },
): Relays {
  const open = new Set<() => void>();
  let draining = false;
  app.addHook("preHandler", async (request, reply) => {
    const match = sessionPath.exec(request.url);
    if (match === null || request.headers[forwardedHeader] !== undefined) return;
    const sessionId = decodeURIComponent(match[1]!);
    if (options.node.holds(sessionId)) return;
    // The lease lookup is storage like any other: the database down answers 503, not 500.
    const lease = await answerWith(() => options.node.leaseOf(sessionId));
    if (lease === null || !lease.live || lease.node_id === options.node.nodeId || lease.url === null) return;
    // A stream relayed now would hold this node's exit open: its client goes to another node.
    if (draining && request.method === "GET" && /text\/event-stream/i.test(request.headers.accept ?? "")) {
      throw problem("daemon_unavailable", "this node is shutting down; open the stream on another node", {
        headers: { "retry-after": "1" },
      });
    }
    const { span, headers: sent } = relaySpan(options.tracing, request, lease.node_id);
    const auth = { token: options.token, nodeId: options.node.nodeId, sender: senderOf(request.raw) };
    const upstream = await relay(lease.url, request.method, request.url, sent, request.body, auth).catch(
      async (error: unknown) => {
        span?.end(503);
        // Nothing listens at the owner's address: it is gone. Free its sessions and answer here.
        if ((error as NodeJS.ErrnoException).code === "ECONNREFUSED") {
          await answerWith(() => options.node.nodeGone(lease.node_id));
          return null;
        }
        options.node.noteError(
          `could not relay to node ${lease.node_id} at ${lease.url}: ${(error as Error).message}`,
        );
        throw problem(
          "request_unavailable",
          `session ${sessionId} is owned by node ${lease.node_id}, which cannot be reached now (${(error as Error).message}); try again shortly`,
          { headers: { "retry-after": "1" } },
        );
      },
    );
    // Null only when the owner refused the connection: the session is answered here.
    if (upstream === null) return;
    span?.end(upstream.statusCode ?? 502);
    reply.hijack();
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (
        value !== undefined &&
        name !== "connection" &&
        name !== "keep-alive" &&
        name !== "transfer-encoding"
      )
        headers[name] = value;
    }
    reply.raw.writeHead(upstream.statusCode ?? 502, headers);
    // SSE: flush each chunk as it comes; a client that leaves ends the relayed stream too.
    reply.raw.flushHeaders();
    upstream.pipe(reply.raw);
    const end = (): void => {
      upstream.destroy();
      reply.raw.destroy();
    };
    open.add(end);
    reply.raw.once("close", () => {
      open.delete(end);
      upstream.destroy();
    });
    upstream.once("error", () => reply.raw.destroy());
    // Cut short (the owner went away, or the idle timeout below): the client must see it end.
    upstream.once("close", () => {
      if (!upstream.complete) reply.raw.destroy();
    });
  });
  return {
    closeAll() {
      draining = true;
      for (const end of [...open]) end();
    },
  };
}

/** The relay's span (none when not tracing) and the headers to send: the owner continues the trace under the span. */
function relaySpan(
  tracing: Tracing | undefined,
  request: { method: string; url: string; headers: Record<string, string | string[] | undefined> },
  ownerNode: string,
): { span: RequestSpan | undefined; headers: Record<string, string | string[] | undefined> } {
  if (tracing === undefined) return { span: undefined, headers: request.headers };
  const incoming = request.headers.traceparent;
  const span = tracing.relay(
    request.method,
    request.url,
    ownerNode,
    typeof incoming === "string" ? incoming : undefined,
  );
  return { span, headers: { ...request.headers, traceparent: span.traceparent } };
}

/** Send the request to `base` and resolve with the response once its headers arrived. */
function relay(
  base: string,
  method: string,
  path: string,
  incoming: Record<string, string | string[] | undefined>,
  body: unknown,
  auth: { token: string; nodeId: string; sender: Sender },
): Promise<IncomingMessage> {
  const target = new URL(path, base);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined && !droppedHeaders.has(name)) headers[name] = value;
  }
  headers.host = target.host;
  headers.authorization = `Bearer ${auth.token}`;
  headers[forwardedHeader] = auth.nodeId;
  // Who sent the request and from where, recorded by the owner (it believes these from the token only).
  if (auth.sender.principal !== null) headers[relayedByHeader] = auth.sender.principal;
  if (auth.sender.address !== null) headers[relayedFromHeader] = auth.sender.address;
  const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
  if (payload !== null) {
    headers["content-type"] = "application/json";
    headers["content-length"] = String(payload.length);
  }
  return new Promise((resolve, reject) => {
    // An https:// node URL is verified like any TLS peer (the system's CAs, NODE_EXTRA_CA_CERTS):
    // the token is only ever sent to a node that proves its name.
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const outgoing = send(target, { method, headers, timeout: 10_000 }, (response) => {
      // The owner writes at least a keepalive every few seconds on a stream: a relayed answer
      // silent for longer lost its owner (a partition drops packets, nothing closes), so it is
      // ended and its client reconnects, to a node that can answer.
      if (/^text\/event-stream/i.test(response.headers["content-type"] ?? "")) {
        outgoing.setTimeout(relayIdleMs, () => outgoing.destroy(new Error("the owner went silent")));
      } else {
        outgoing.setTimeout(0);
      }
      resolve(response);
    });
    // Nodes of a cluster share a network: a connection that is not up in a few seconds is not
    // coming (a partition drops the packets), and the caller hears 503 sooner.
    outgoing.once("socket", (socket) => {
      if (!socket.connecting) return;
      const timer = setTimeout(
        () => outgoing.destroy(new Error(`no connection within ${relayConnectMs / 1000} s`)),
        relayConnectMs,
      );
      socket.once("connect", () => clearTimeout(timer));
      outgoing.once("close", () => clearTimeout(timer));
    });
    let answered = false;
    outgoing.once("response", () => {
      answered = true;
    });
    outgoing.on("timeout", () => {
      if (!answered) outgoing.destroy(new Error("no answer within 10 s"));
    });
    outgoing.once("error", reject);
    outgoing.end(payload ?? undefined);
  });
}
