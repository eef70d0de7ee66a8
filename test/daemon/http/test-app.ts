/** A daemon HTTP app with a few dummy routes, listening on 127.0.0.1, for the ingress tests. */
import { Type } from "typebox";
import { createHttpApp, type HttpApp, wantsEventStream } from "../../../src/daemon/http/create-http-app.js";
import { problem } from "../../../src/daemon/http/problem.js";
import { registerResource } from "../../../src/daemon/http/resource.js";
import { inputBodyLimit } from "../../../src/daemon/http/route-config.js";
import { startedForDescribe } from "../../support/started-for-describe.js";

export const token = "test-token-0123456789abcdef";

export interface TestApp {
  app: HttpApp;
  port: number;
  base: string;
  /** What the dummy handlers received, newest last. */
  received: unknown[];
  draining: { value: boolean };
  /** fetch with the token and the right Host (undici sets Host from the URL). */
  call(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

const MessageInput = Type.Object(
  { kind: Type.Literal("message"), text: Type.String(), client_id: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const ContinueInput = Type.Object({ kind: Type.Literal("continue") }, { additionalProperties: false });

/** Start the app with dummy routes on an ephemeral port. */
/** One test app for the calling file (or `describe`): started before its tests, closed after them. */
export function withTestApp(): TestApp {
  return startedForDescribe(
    () => startTestApp(),
    (started) => started.close(),
  );
}

export async function startTestApp(
  options: Parameters<typeof createHttpApp>[0] | null = null,
): Promise<TestApp> {
  const draining = { value: false };
  const received: unknown[] = [];
  const app = createHttpApp(options ?? { token, isDraining: () => draining.value });

  registerResource(app, "/things/:id", {
    GET: {
      schema: {
        querystring: Type.Object(
          { tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 200 })) },
          { additionalProperties: false },
        ),
      },
      config: { eventStream: true },
      handler: async (request) => {
        received.push(request.query);
        return {
          id: (request.params as { id: string }).id,
          query: request.query,
          stream: wantsEventStream(request),
        };
      },
    },
    PUT: {
      schema: { body: Type.Union([MessageInput, ContinueInput]) },
      bodyLimit: inputBodyLimit,
      config: { startsWork: true },
      handler: async (request, reply) => {
        received.push(request.body);
        const body = request.body as { kind: string; text?: string };
        return reply.code(202).send({ kind: body.kind, length: body.text?.length ?? 0 });
      },
    },
    DELETE: { handler: async () => ({ deleted: true }) },
  });

  app.post(
    "/small",
    { schema: { body: Type.Object({ text: Type.String() }, { additionalProperties: false }) } },
    async (request) => {
      received.push(request.body);
      return { text: request.body.text };
    },
  );
  app.post("/work", { config: { startsWork: true } }, async (_request, reply) =>
    reply.code(202).send({ ok: true }),
  );
  app.get("/server", async () => ({ state: draining.value ? "draining" : "ready" }));
  app.get("/boom", async () => {
    throw new Error("secret internal detail /etc/passwd");
  });
  app.get("/busy", async () => {
    throw problem("session_busy", "a turn is running", { headers: { "retry-after": "2" } });
  });
  app.get("/stream", { config: { eventStream: true } }, async (request, reply) => {
    if (!wantsEventStream(request)) return { not: "a stream" };
    reply.hijack();
    reply.raw.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    let count = 0;
    const timer = setInterval(() => {
      count += 1;
      reply.raw.write(`data: ${count}\n\n`);
    }, 100);
    reply.raw.on("close", () => clearInterval(timer));
    return reply;
  });

  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  return {
    app,
    port,
    base,
    received,
    draining,
    call: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has("authorization")) headers.set("authorization", `Bearer ${token}`);
      return fetch(`${base}${path}`, { ...init, headers });
    },
    close: () => app.close(),
  };
}

/** The authorization and host lines of a valid raw request. */
export function validHead(port: number): string[] {
  return [`Host: 127.0.0.1:${port}`, `Authorization: Bearer ${token}`];
}
