/**
 * The Node.js floor of a plain turn: a minimal server, run as a process of its own by
 * bench/turn-floor.ts, that does the I/O one plain turn cannot do without, with the libraries
 * the daemon uses where they are the cost, and nothing else:
 * - `PUT /sessions/:id/inputs/:input` (bearer token, JSON body, Fastify) answers 202 once the
 *   turn's start is durable: one SQLite commit (the user's entry, the input and turn rows, the
 *   session row, the signed head) and an fsync of the write-ahead log off the main thread;
 * - one Chat Completions streaming request per turn to the provider (undici), its SSE answer
 *   parsed (eventsource-parser), sent as soon as the start is written (as the daemon does);
 * - the turn's events written to the session's open SSE stream (`GET /sessions/:id`), a frame per
 *   batch: the start's, the deltas held until the start is durable, the end's;
 * - the turn's end: a second commit (the answer's entry, the turn row, the session's usage, the
 *   signed head), durable before its events go out.
 * It keeps the conversation in memory to build each request (the daemon replays it from its log),
 * and answers nothing else: no retries, queues, tools, approvals, compaction, checkpoints, logs.
 *
 * Started as `node <bundle> <config.json>`; prints `{"port":N}` on stdout once listening.
 * Boundary rule: bench support only; no code of the daemon's.
 */
import { randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { createParser } from "eventsource-parser";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { Agent, request } from "undici";
import {
  endEvents,
  type FloorEvent,
  type FloorTurn,
  frame,
  receipt,
  startEvents,
  textEvent,
  usageEvent,
} from "./turn-floor-events.js";
import { type FloorChain, FloorStore } from "./turn-floor-store.js";

/** What bench/turn-floor.ts writes into the config file. */
export interface FloorConfig {
  dbPath: string;
  token: string;
  /** The provider's Chat Completions URL. */
  providerUrl: string;
  apiKey: string;
  model: string;
  /** The system prompt and the tools' JSON array of the daemon's requests, so each request is as long. */
  system: string;
  toolsJson: string;
}

type Event = { type: string; data: unknown };

/** One session: its chain, its conversation (each message serialized once) and its stream. */
interface FloorSession {
  id: string;
  chain: FloorChain;
  order: number;
  messages: string[];
  watchers: Set<ServerResponse>;
  sequence: number;
  pending: FloorEvent[];
  flushScheduled: boolean;
}

const config = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as FloorConfig;
const store = new FloorStore(config.dbPath);
const sessions = new Map<string, FloorSession>();
const generation = randomUUID().replaceAll("-", "").slice(0, 22);
const expected = Buffer.from(`Bearer ${config.token}`);
const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
const requestHead = `{"model":${JSON.stringify(config.model)},"messages":[`;
const requestTail = `],"stream":true,"stream_options":{"include_usage":true},"tools":${config.toolsJson}}`;

function authorized(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const given = Buffer.from(req.headers.authorization ?? "");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    reply.code(401).send({ error: "unauthorized" });
    return;
  }
  done();
}

/** Queue events on a session's stream; one frame per event-loop turn carries all queued. */
function publish(session: FloorSession, events: readonly Event[]): void {
  for (const event of events) session.pending.push({ ...event, sequence: ++session.sequence });
  if (session.flushScheduled) return;
  session.flushScheduled = true;
  setImmediate(() => {
    session.flushScheduled = false;
    const text = frame(generation, session.sequence, session.pending);
    session.pending = [];
    for (const watcher of session.watchers) watcher.write(text);
  });
}

/** The provider's streamed answer: its text deltas published (or held) as they come, its text and usage. */
async function askProvider(
  session: FloorSession,
  onDelta: (event: Event) => void,
  turn: FloorTurn,
): Promise<{ answer: string; prompt: number; completion: number }> {
  const response = await request(config.providerUrl, {
    method: "POST",
    headers: {
      "accept-encoding": "identity",
      "user-agent": "skein",
      "content-type": "application/json",
      accept: "text/event-stream",
      authorization: `Bearer ${config.apiKey}`,
    },
    body: requestHead + session.messages.join(",") + requestTail,
    dispatcher,
  });
  if (response.statusCode !== 200) throw new Error(`provider: ${response.statusCode}`);
  let answer = "";
  let prompt = 0;
  let completion = 0;
  const parser = createParser({
    onEvent: (message) => {
      if (message.data === "[DONE]") return;
      const chunk = JSON.parse(message.data) as {
        choices?: { delta?: { content?: string | null } }[];
        usage?: { prompt_tokens: number; completion_tokens: number } | null;
      };
      const text = chunk.choices?.[0]?.delta?.content;
      if (typeof text === "string" && text !== "") {
        answer += text;
        onDelta(textEvent(turn, text));
      }
      if (chunk.usage) {
        prompt = chunk.usage.prompt_tokens;
        completion = chunk.usage.completion_tokens;
        onDelta(usageEvent(turn, config.model, prompt, completion));
      }
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
  return { answer, prompt, completion };
}

/** One plain turn: start committed and durable (then the 202), the request, the end committed and durable. */
async function plainTurn(session: FloorSession, inputId: string, body: string, text: string) {
  const at = Date.now();
  const turn: FloorTurn = {
    session: session.id,
    inputId,
    turnId: randomUUID(),
    order: ++session.order,
    text,
    acceptedAt: new Date(at).toISOString(),
    position: session.chain.position + 1,
  };
  const user = {
    input_id: inputId,
    item: { content: [{ text, type: "text" }], role: "user", type: "message" },
  };
  const entry = JSON.stringify({ ...user, kind: "user_input", ts: at, turn_id: turn.turnId });
  store.commitStart(
    { session: session.id, inputId, turnId: turn.turnId, body, order: turn.order, entry, at },
    session.chain,
  );
  session.messages.push(JSON.stringify({ role: "user", content: text }));
  // The request goes out while the start is flushed; what it brings is held until the start is durable.
  let held: Event[] | null = [];
  const answered = askProvider(
    session,
    (event) => (held === null ? publish(session, [event]) : held.push(event)),
    turn,
  );
  const started = store.durable().then(() => {
    publish(session, [...startEvents(turn), ...(held ?? [])]);
    held = null;
  });
  return { turn, started, ended: endOf(session, turn, answered, started) };
}

async function endOf(
  session: FloorSession,
  turn: FloorTurn,
  answered: Promise<{ answer: string; prompt: number; completion: number }>,
  started: Promise<void>,
): Promise<void> {
  const { answer, prompt, completion } = await answered;
  await started;
  const at = Date.now();
  const item = { content: [{ text: answer, type: "text" }], role: "assistant", type: "message" };
  const usage = { input_tokens: prompt, output_tokens: completion, profile: "bench" };
  const entry = JSON.stringify({
    items: [item],
    kind: "assistant_items",
    ts: at,
    turn_id: turn.turnId,
    usage,
  });
  store.commitEnd(
    {
      session: session.id,
      turnId: turn.turnId,
      entry,
      promptTokens: prompt,
      completionTokens: completion,
      at,
    },
    session.chain,
  );
  session.messages.push(JSON.stringify({ role: "assistant", content: answer }));
  await store.durable();
  publish(session, endEvents(turn, session.chain.position, answer, new Date(at).toISOString()));
}

const app = Fastify({ logger: false });
app.addHook("onRequest", authorized);

app.put<{ Params: { id: string } }>("/sessions/:id", (req, reply) => {
  const id = req.params.id;
  store.createSession(id);
  const system = JSON.stringify({ role: "system", content: config.system });
  sessions.set(id, {
    id,
    chain: { position: 0, hash: null },
    order: 0,
    messages: [system],
    watchers: new Set(),
    sequence: 0,
    pending: [],
    flushScheduled: false,
  });
  reply.code(201).send({ id });
});

app.get<{ Params: { id: string } }>("/sessions/:id", (req, reply) => {
  const session = sessions.get(req.params.id);
  if (session === undefined) return reply.code(404).send({ error: "no such session" });
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
  res.write(frame(generation, session.sequence, []));
  session.watchers.add(res);
  req.raw.on("close", () => session.watchers.delete(res));
  return reply;
});

const inputBody = {
  type: "object",
  required: ["kind", "text"],
  properties: { kind: { const: "message" }, text: { type: "string", minLength: 1 } },
} as const;

app.put<{ Params: { id: string; input: string }; Body: { kind: "message"; text: string } }>(
  "/sessions/:id/inputs/:input",
  { schema: { body: inputBody } },
  async (req, reply) => {
    const session = sessions.get(req.params.id);
    if (session === undefined) return reply.code(404).send({ error: "no such session" });
    const { turn, started, ended } = await plainTurn(
      session,
      req.params.input,
      JSON.stringify(req.body),
      req.body.text,
    );
    ended.catch((error: unknown) => {
      process.stderr.write(`turn failed: ${String(error)}\n`);
      process.exit(1);
    });
    await started;
    reply.header("cache-control", "no-store");
    return reply.code(202).send(receipt(turn, "pending", null, null));
  },
);

await app.listen({ host: "127.0.0.1", port: 0 });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === "object" && address !== null ? address.port : 0 })}\n`,
);
