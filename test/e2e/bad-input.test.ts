/**
 * The bad-input matrix against one daemon: every malformed, unauthorized or impossible request
 * gets its problem JSON with the right status and `code`, and afterwards the daemon answers the
 * next valid request normally and the session it was aimed at is unchanged.
 */
import { v4 as uuidv4, v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";
import {
  type ApiResponse,
  type DaemonHarness,
  databaseKinds,
  type HistoryPage,
  rawRequest,
} from "./support/daemon-harness.js";
import { startFixture } from "./support/fixture.js";
import { StreamRefusedError } from "./support/sse-client.js";

const day = 24 * 60 * 60 * 1000;

interface Context {
  app: DaemonHarness;
  /** A session with one completed turn; every case aims at it when it aims at a session. */
  session: string;
  generation: string;
  /** An `older` token of `session`'s history, bound to limit=1. */
  token: string;
  /** An `older` token of another session, bound to limit=1. */
  foreignToken: string;
}

interface Case {
  name: string;
  status: number;
  code: string;
  send(context: Context): Promise<ApiResponse>;
  check?(response: ApiResponse): void;
}

/** A request with full control over the headers (no token unless given). */
function bare(
  context: Context,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<ApiResponse> {
  return rawRequest(context.app.port, { method, path, headers, body });
}

/** A stream request's refusal as an ApiResponse (the stream never started). */
async function stream(
  context: Context,
  path: string,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const response = await context.app.api(path, { headers: { accept: "text/event-stream", ...headers } });
  if (response.status === 200) throw new StreamRefusedError(200, "the stream started");
  return response;
}

function putInput(context: Context, inputId: string, body: unknown, sessionId = context.session) {
  return context.app.api(`/sessions/${sessionId}/inputs/${inputId}`, { method: "PUT", body });
}

function create(context: Context, id: string, headers: Record<string, string> = { "if-none-match": "*" }) {
  return context.app.api(`/sessions/${id}`, {
    method: "PUT",
    headers,
    body: { kind: "new", workspace: context.app.workspace },
  });
}

const message = { kind: "message", text: "should never be stored" };

const cases: Case[] = [
  {
    name: "a request without a token gets 401 with WWW-Authenticate",
    status: 401,
    code: "authentication_required",
    send: (c) => bare(c, "GET", `/sessions/${c.session}`, {}),
    check: (response) => expect(response.headers["www-authenticate"]).toBe("Bearer"),
  },
  {
    name: "a request with a wrong token gets 401 with WWW-Authenticate",
    status: 401,
    code: "authentication_required",
    send: (c) => bare(c, "GET", "/server", { authorization: `Bearer ${"0".repeat(64)}` }),
    check: (response) => expect(response.headers["www-authenticate"]).toBe("Bearer"),
  },
  {
    name: "an input with a wrong token gets 401 and is not stored",
    status: 401,
    code: "authentication_required",
    send: (c) =>
      bare(
        c,
        "PUT",
        `/sessions/${c.session}/inputs/${uuidv7()}`,
        { authorization: "Bearer wrong", "content-type": "application/json" },
        JSON.stringify(message),
      ),
  },
  {
    name: "a foreign Host gets 403 host_forbidden",
    status: 403,
    code: "host_forbidden",
    send: (c) => c.app.api("/server", { headers: { host: `rebind.example:${c.app.port}` } }),
  },
  {
    name: "a Host with another port gets 403 host_forbidden",
    status: 403,
    code: "host_forbidden",
    send: (c) => c.app.api("/server", { headers: { host: `127.0.0.1:${c.app.port === 1 ? 2 : 1}` } }),
  },
  {
    name: "an input sent by a foreign web page (Origin: http://evil.example) gets 403 origin_forbidden and is not stored",
    status: 403,
    code: "origin_forbidden",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/inputs/${uuidv7()}`, {
        method: "PUT",
        headers: { origin: "http://evil.example" },
        body: message,
      }),
    check: (response) => expect(response.headers.connection).toBe("close"),
  },
  {
    name: "an input sent as text/plain gets 415",
    status: 415,
    code: "unsupported_media_type",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/inputs/${uuidv7()}`, {
        method: "PUT",
        headers: { "content-type": "text/plain" },
        rawBody: JSON.stringify(message),
      }),
  },
  {
    name: "an input without a content type gets 415",
    status: 415,
    code: "unsupported_media_type",
    send: (c) =>
      bare(
        c,
        "PUT",
        `/sessions/${c.session}/inputs/${uuidv7()}`,
        { authorization: `Bearer ${c.app.token}` },
        JSON.stringify(message),
      ),
  },
  {
    name: "malformed JSON gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/inputs/${uuidv7()}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        rawBody: '{"kind":"message","text":',
      }),
  },
  {
    name: "a body with a __proto__ key gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/inputs/${uuidv7()}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        rawBody: '{"kind":"message","text":"hi","__proto__":{"polluted":true}}',
      }),
  },
  {
    name: "an input body over 8 MiB gets 413",
    status: 413,
    code: "request_body_too_large",
    send: (c) => putInput(c, uuidv7(), { kind: "message", text: "x".repeat(8 * 1024 * 1024 + 1024) }),
  },
  {
    // A creation may carry its first input, so it has the input's limit.
    name: "a session body over 8 MiB gets 413",
    status: 413,
    code: "request_body_too_large",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: {
          kind: "new",
          workspace: c.app.workspace,
          input: { id: uuidv7(), kind: "message", text: "y".repeat(8 * 1024 * 1024 + 1024) },
        },
      }),
  },
  {
    name: "a session's system prompt over 64 KiB gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { kind: "new", workspace: c.app.workspace, system_prompt: "y".repeat(65 * 1024) },
      }),
  },
  {
    name: "an interrupt body over 64 KiB gets 413",
    status: 413,
    code: "request_body_too_large",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/interrupt`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        rawBody: `{"run_id":null,"through_input_order":0${" ".repeat(65 * 1024)}}`,
      }),
  },
  {
    name: "an input with an unknown field gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => putInput(c, uuidv7(), { ...message, priority: "high" }),
  },
  {
    name: "a session with an unknown field gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { kind: "new", workspace: c.app.workspace, colour: "blue" },
      }),
  },
  {
    name: "an unknown query parameter gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}?verbose=1`),
  },
  {
    name: "an unknown query parameter on history gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}/history?order=desc`),
  },
  {
    name: "a repeated query parameter gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}?tail=1&tail=2`),
  },
  {
    name: "a session id that is not a UUID gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api("/sessions/not-a-session"),
  },
  {
    name: "a session id that is a UUIDv4 gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => create(c, uuidv4()),
  },
  {
    name: "an input id that is not a UUID gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => putInput(c, "input-1", message),
  },
  {
    name: "a session id older than 7 days gets 410 identity_expired",
    status: 410,
    code: "identity_expired",
    send: (c) => create(c, uuidv7({ msecs: Date.now() - 8 * day })),
  },
  {
    name: "an input id older than 7 days gets 410 identity_expired",
    status: 410,
    code: "identity_expired",
    send: (c) => putInput(c, uuidv7({ msecs: Date.now() - 8 * day }), message),
  },
  {
    name: "a session id from the future gets 400",
    status: 400,
    code: "identity_future",
    send: (c) => create(c, uuidv7({ msecs: Date.now() + day })),
  },
  {
    name: "an input id from the future gets 400",
    status: 400,
    code: "identity_future",
    send: (c) => putInput(c, uuidv7({ msecs: Date.now() + 10 * 60 * 1000 }), message),
  },
  {
    name: "a create without If-None-Match gets 428",
    status: 428,
    code: "precondition_required",
    send: (c) => create(c, uuidv7(), {}),
  },
  {
    name: "a create on an existing id gets 412",
    status: 412,
    code: "precondition_failed",
    send: (c) => create(c, c.session),
  },
  {
    name: "a malformed after_generation gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => stream(c, `/sessions/${c.session}?after_generation=short&after_seq=1`),
  },
  {
    name: "a malformed after_seq gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => stream(c, `/sessions/${c.session}?after_generation=${c.generation}&after_seq=-1`),
  },
  {
    name: "after_generation without after_seq gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => stream(c, `/sessions/${c.session}?after_generation=${c.generation}`),
  },
  {
    name: "a malformed Last-Event-ID gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => stream(c, `/sessions/${c.session}`, { "last-event-id": "not.a.cursor" }),
  },
  {
    name: "replay parameters without Accept: text/event-stream get 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}?after_generation=${c.generation}&after_seq=0`),
  },
  {
    name: "an unknown session gets 404",
    status: 404,
    code: "resource_not_found",
    send: (c) => c.app.api(`/sessions/${uuidv7()}`),
  },
  {
    name: "the stream of an unknown session gets 404 before streaming",
    status: 404,
    code: "resource_not_found",
    send: (c) => stream(c, `/sessions/${uuidv7()}`),
  },
  {
    name: "the history of an unknown session gets 404",
    status: 404,
    code: "resource_not_found",
    send: (c) => c.app.api(`/sessions/${uuidv7()}/history`),
  },
  {
    name: "an input to an unknown session gets 404",
    status: 404,
    code: "resource_not_found",
    send: (c) => putInput(c, uuidv7(), message, uuidv7()),
  },
  {
    name: "the receipt of an unknown input gets 404 input_unknown",
    status: 404,
    code: "input_unknown",
    send: (c) => c.app.api(`/sessions/${c.session}/inputs/${uuidv7()}`),
  },
  {
    name: "another session's history token gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/history?limit=1&next=${encodeURIComponent(c.foreignToken)}`),
  },
  {
    name: "a tampered history token gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => {
      const last = c.token.at(-2) === "A" ? "B" : "A";
      const tampered = `${c.token.slice(0, -2)}${last}${c.token.slice(-1)}`;
      return c.app.api(`/sessions/${c.session}/history?limit=1&next=${encodeURIComponent(tampered)}`);
    },
  },
  {
    name: "a history token used with another limit gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}/history?limit=2&next=${encodeURIComponent(c.token)}`),
  },
  {
    name: "a wrong method on a session gets 405 with Allow",
    status: 405,
    code: "method_not_allowed",
    send: (c) => c.app.api(`/sessions/${c.session}`, { method: "POST", body: { name: "renamed" } }),
    check: (response) => expect(response.headers.allow).toBe("DELETE, GET, PATCH, PUT"),
  },
  {
    name: "a settings change with a field that does not exist is refused",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}`, { method: "PATCH", body: { name: "renamed" } }),
  },
  {
    name: "a wrong method on the collection gets 405 with Allow",
    status: 405,
    code: "method_not_allowed",
    send: (c) => c.app.api("/sessions", { method: "POST", body: { kind: "new" } }),
    check: (response) => expect(response.headers.allow).toBe("GET"),
  },
  {
    name: "a tail over 200 gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}?tail=201`),
  },
  {
    name: "a history limit of 0 gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}/history?limit=0`),
  },
  {
    name: "an Accept that allows neither JSON nor SSE gets 406",
    status: 406,
    code: "not_acceptable",
    send: (c) => c.app.api(`/sessions/${c.session}`, { headers: { accept: "image/png" } }),
  },
  {
    name: "a gzip-encoded body gets 415 unsupported_encoding",
    status: 415,
    code: "unsupported_encoding",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/inputs/${uuidv7()}`, {
        method: "PUT",
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        rawBody: JSON.stringify(message),
      }),
  },
  {
    name: "an interrupt of an unknown session gets 404",
    status: 404,
    code: "resource_not_found",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}/interrupt`, {
        method: "POST",
        body: { run_id: null, through_input_order: 0 },
      }),
  },
  {
    name: "an interrupt without through_input_order gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) => c.app.api(`/sessions/${c.session}/interrupt`, { method: "POST", body: { run_id: null } }),
  },
  {
    name: "a fork of an unknown session gets 404",
    status: 404,
    code: "resource_not_found",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { kind: "fork", source_session_id: uuidv7(), checkpoint_id: "1" },
      }),
  },
  {
    name: "a session whose workspace does not exist gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { kind: "new", workspace: `${c.app.workspace}/missing` },
      }),
  },
  {
    name: "a session with a relative workspace gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { kind: "new", workspace: "relative/dir" },
      }),
  },
  {
    name: "a session with an unknown provider profile gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${uuidv7()}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { kind: "new", workspace: c.app.workspace, provider_profile: "nowhere" },
      }),
  },
  {
    name: "a blank message gets 400 message_empty",
    status: 400,
    code: "message_empty",
    send: (c) => putInput(c, uuidv7(), { kind: "message", text: " \n\t " }),
  },
  {
    name: "an input whose client_id poses as a schedule's firing (schedule:<id>) gets 400 and is not stored",
    status: 400,
    code: "invalid_request",
    send: (c) => putInput(c, uuidv7(), { ...message, client_id: `schedule:${uuidv7()}` }),
    check: (response) => expect(response.json().detail).toContain('"schedule:"'),
  },
  {
    name: "an input whose client_id poses as a task's child input (task:<parent>) gets 400 and is not stored",
    status: 400,
    code: "invalid_request",
    send: (c) => putInput(c, uuidv7(), { kind: "continue", client_id: `task:${c.session}` }),
  },
  {
    name: "an approval answer whose client_id poses as a schedule gets 400",
    status: 400,
    code: "invalid_request",
    send: (c) =>
      c.app.api(`/sessions/${c.session}/approvals/call_1`, {
        method: "POST",
        body: { decision: "allow", client_id: "schedule:nightly" },
      }),
  },
];

describe.each(databaseKinds)("the bad-input matrix ($name)", ({ database }) => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let context: Context;
  let baseline: { history: HistoryPage; inputOrder: number; sessions: number };

  async function state(sessionId: string) {
    const history = await app.history(sessionId);
    const snapshot = await app.api(`/sessions/${sessionId}?tail=0`);
    expect(snapshot.status).toBe(200);
    const sessions = (await app.api("/sessions")).json<{ items: unknown[] }>().items.length;
    return { history, inputOrder: snapshot.json<{ input_order: number }>().input_order, sessions };
  }

  beforeAll(async () => {
    ({ provider, app } = await startFixture({}, database));
    provider.script = () => text("fine");
    const session = await app.createSession();
    await app.turn(session, "the only prompt");
    const other = await app.createSession();
    await app.turn(other, "another prompt");
    const olderToken = async (id: string) => {
      const snapshot = await app.api(`/sessions/${id}?tail=1`);
      const older = snapshot.json<{ history: HistoryPage }>().history.older;
      if (older === null) throw new Error("expected an older token");
      return older;
    };
    const page = await app.streamPage(session);
    context = {
      app,
      session,
      generation: page.generation,
      token: await olderToken(session),
      foreignToken: await olderToken(other),
    };
    baseline = await state(session);
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it.each(cases)("$name", async (testCase) => {
    const requestsBefore = provider.requests.length;
    const response = await testCase.send(context);
    expect(response.status).toBe(testCase.status);
    expect(response.headers["content-type"]).toBe("application/problem+json");
    const problem = response.json();
    expect(problem).toMatchObject({ type: "about:blank", status: testCase.status, code: testCase.code });
    expect(typeof problem.title).toBe("string");
    expect(typeof problem.detail).toBe("string");
    expect(problem).not.toHaveProperty("snapshot");
    testCase.check?.(response);

    // The daemon answers the next valid request normally; the session is unchanged and no
    // session was created.
    const server = await app.api("/server");
    expect(server.status).toBe(200);
    expect(server.json().state).toBe("ready");
    expect(await state(context.session)).toEqual(baseline);
    expect(provider.requests.length).toBe(requestsBefore);
  });

  it("accepts an input larger than 64 KiB, since inputs may be up to 8 MiB", async () => {
    const sessionId = await app.createSession();
    const big = "z".repeat(200 * 1024);
    const response = await putInput(context, uuidv7(), { kind: "message", text: big }, sessionId);
    expect(response.status).toBe(202);
    await app.idle(sessionId);
    const history = await app.history(sessionId);
    expect(history.items[0]?.content[0]?.text).toBe(big);
  });
});
