/**
 * One HTTP exchange with the daemon over loopback (node:http: cheaper to load than fetch, and
 * a stream can be cut at once by destroying its request).
 *
 * Boundary rule: transport only. Connection failures reject with the socket's error unchanged
 * (the client decides what they mean); every answer, error statuses included, resolves.
 */
import {
  type Agent,
  type ClientRequest,
  Agent as HttpAgent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestOptions,
  request,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { type DaemonEndpoint, pinnedTls } from "./daemon-endpoint.js";

/** A client's connection pools: one for a daemon serving HTTP, one for HTTPS. */
export interface ClientAgents {
  http: Agent;
  https: HttpsAgent;
}

/** New connection pools (keeping connections open between requests unless `keepAlive` is false). */
export function clientAgents(keepAlive = true): ClientAgents {
  return {
    http: new HttpAgent({ keepAlive, maxSockets: 16 }),
    https: new HttpsAgent({ keepAlive, maxSockets: 16 }),
  };
}

/** node:http or node:https, as the daemon serves. */
function send(endpoint: DaemonEndpoint): typeof request {
  return endpoint.tlsCert === undefined ? request : httpsRequest;
}

function tlsOf(endpoint: DaemonEndpoint): ReturnType<typeof pinnedTls> | Record<string, never> {
  return endpoint.tlsCert === undefined ? {} : pinnedTls(endpoint.tlsCert);
}

/** A request to the daemon; `body` is sent as JSON. */
export interface ExchangeRequest {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Abort when no answer has come after this long. */
  timeoutMs?: number;
}

/** An answer with its body read. */
export interface ExchangeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An error while talking to the daemon that says nothing reached it or came back. */
class ExchangeTimeoutError extends Error {
  readonly code = "ETIMEDOUT";
  constructor(method: string, path: string, timeoutMs: number) {
    super(`${method} ${path}: no answer within ${timeoutMs} ms`);
    this.name = "ExchangeTimeoutError";
  }
}

/** Send one request and read the whole answer. */
export function exchange(
  endpoint: DaemonEndpoint,
  agents: ClientAgents,
  spec: ExchangeRequest,
): Promise<ExchangeAnswer> {
  return new Promise((resolve, reject) => {
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${endpoint.token}`,
      accept: "application/json",
      ...(payload === undefined
        ? {}
        : { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) }),
      ...spec.headers,
    };
    const req = send(endpoint)(
      {
        host: endpoint.host ?? "127.0.0.1",
        port: endpoint.port,
        ...tlsOf(endpoint),
        method: spec.method,
        path: spec.path,
        headers,
        agent: endpoint.tlsCert === undefined ? agents.http : agents.https,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          clear();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        });
        res.on("error", (error) => {
          clear();
          reject(error);
        });
      },
    );
    const timer =
      spec.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => req.destroy(new ExchangeTimeoutError(spec.method, spec.path, spec.timeoutMs!)),
            spec.timeoutMs,
          );
    const clear = (): void => {
      if (timer !== undefined) clearTimeout(timer);
    };
    req.on("error", (error) => {
      clear();
      reject(error);
    });
    req.end(payload);
  });
}

/** An open event stream: the answer's head, its body as a readable, and a way to cut it. */
export interface OpenedStream {
  response: IncomingMessage;
  request: ClientRequest;
}

/**
 * Open `GET path` with `Accept: text/event-stream`: on an idle kept-alive connection of `agents`
 * when there is one (the one a command's previous request left, so the daemon accepts and sets
 * up no second connection), taken out of the pool, else on a connection of its own (a stream
 * never waits for a pooled connection behind the pool's limit). A reused connection the daemon
 * closed meanwhile is replaced by a new one once.
 */
export function openEventStream(
  endpoint: DaemonEndpoint,
  agents: ClientAgents,
  path: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const options = {
      host: endpoint.host ?? "127.0.0.1",
      port: endpoint.port,
      ...tlsOf(endpoint),
      method: "GET",
      path,
      headers: { authorization: `Bearer ${endpoint.token}`, accept: "text/event-stream", ...headers },
    };
    const open = (agent: Agent | false): void => {
      const req = send(endpoint)({ ...options, agent }, (res) => {
        clearTimeout(timer);
        resolve({ response: res, request: req });
      });
      const timer = setTimeout(
        () => req.destroy(new ExchangeTimeoutError("GET", path, timeoutMs)),
        timeoutMs,
      );
      // A stream holds its connection for long: it leaves the pool, so that however many are
      // open, the client's other requests never wait behind them for the pool's limit.
      if (agent !== false) req.once("socket", (socket) => socket.emit("agentRemove"));
      // Out of the pool, a connection kept alive after the stream's end would belong to nobody:
      // nothing would reuse or close it, and it would hold the process open until the daemon's
      // keep-alive timeout. So the stream's end closes its connection.
      req.shouldKeepAlive = false;
      req.on("error", (error) => {
        clearTimeout(timer);
        // The daemon may close an idle connection just as it is reused: nothing reached it.
        if (req.reusedSocket && isConnectionLost(error)) open(false);
        else reject(error);
      });
      req.end();
    };
    open(idleConnectionPool(endpoint, agents, options));
  });
}

/** The pool of `agents` for `endpoint` when it holds an idle connection to it, else false. */
function idleConnectionPool(
  endpoint: DaemonEndpoint,
  agents: ClientAgents,
  options: RequestOptions,
): Agent | false {
  const agent = endpoint.tlsCert === undefined ? agents.http : agents.https;
  const idle = agent.freeSockets[agent.getName(options)];
  return idle !== undefined && idle.length > 0 ? agent : false;
}

/** Read the rest of a response body as text. */
export async function readBody(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Whether a socket error means the request cannot have reached a daemon. */
export function isConnectionRefused(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ECONNREFUSED" || code === "EADDRNOTAVAIL" || code === "ENOTFOUND";
}

/** Whether a socket error is a lost connection (the daemon may or may not have seen the request). */
export function isConnectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ECONNRESET" || code === "EPIPE" || code === "ETIMEDOUT" || code === "ECONNABORTED";
}
