/**
 * Who sends a request is decided before how it is framed: every framing or parse error the
 * daemon answers, sent with a valid token but a foreign Origin or Host, gets the 403 of the
 * origin or host check, as a well-framed request would. Over a raw socket, since fetch cannot
 * send malformed framing.
 */
import { describe, expect, it } from "vitest";
import { expectProblem, type RawResponse, rawConversation, rawRequest } from "./raw-http.js";
import { token, withTestApp } from "./test-app.js";

const t = withTestApp();

const auth = `Authorization: Bearer ${token}`;
const json = "Content-Type: application/json";

/** A bad request: its request line, its other header lines (no Host, token or Origin) and its body bytes. */
interface Malformed {
  name: string;
  /** What the daemon answers it with when Host and Origin are fine. */
  status: number;
  requestLine: string;
  lines: string[];
  body?: string;
}

const malformed: Malformed[] = [
  {
    name: "a Content-Length that is no number",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Length: abc"],
  },
  {
    name: "a negative Content-Length",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Length: -1"],
  },
  {
    name: "two Content-Length headers",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Length: 12", "Content-Length: 12"],
    body: '{"text":"a"}',
  },
  {
    name: "two different Content-Length headers",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Length: 12", "Content-Length: 13"],
    body: '{"text":"a"}',
  },
  {
    name: "Content-Length with Transfer-Encoding",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Length: 12", "Transfer-Encoding: chunked"],
    body: '{"text":"a"}',
  },
  {
    name: "a Transfer-Encoding other than chunked",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Transfer-Encoding: gzip"],
    body: "x",
  },
  {
    name: "a chunk size that is no number",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Transfer-Encoding: chunked"],
    body: 'zz\r\n{"text":"a"}\r\n0\r\n\r\n',
  },
  {
    name: "oversized chunk extensions",
    status: 413,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Transfer-Encoding: chunked"],
    body: `1;${"x".repeat(20_000)}\r\n{\r\n`,
  },
  {
    name: "a body that is not JSON",
    status: 400,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Length: 9"],
    body: "{not json",
  },
  {
    name: "a declared body over the limit",
    status: 413,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Length: 100000"],
  },
  {
    name: "a chunked body over the limit",
    status: 413,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Transfer-Encoding: chunked"],
    body: `${(70_000).toString(16)}\r\n${"a".repeat(70_000)}\r\n0\r\n\r\n`,
  },
  {
    name: "a body of another media type",
    status: 415,
    requestLine: "POST /small HTTP/1.1",
    lines: ["Content-Type: text/plain", "Content-Length: 2"],
    body: "hi",
  },
  {
    name: "a compressed body",
    status: 415,
    requestLine: "POST /small HTTP/1.1",
    lines: [json, "Content-Encoding: gzip", "Content-Length: 2"],
    body: "hi",
  },
  {
    name: "a header line without a colon",
    status: 400,
    requestLine: "GET /server HTTP/1.1",
    lines: ["No Colon"],
  },
  {
    name: "a control character in a header value",
    status: 400,
    requestLine: "GET /server HTTP/1.1",
    lines: ["X-Value: a\u0001b"],
  },
  { name: "a malformed request line", status: 400, requestLine: "GET /server HTTP/1.1 extra", lines: [] },
  { name: "an unknown HTTP version", status: 400, requestLine: "GET /server HTTP/7.1", lines: [] },
  { name: "a malformed URL", status: 400, requestLine: "GET /%E0%A4%A HTTP/1.1", lines: [] },
  { name: "an unknown query parameter", status: 400, requestLine: "GET /server?x=1 HTTP/1.1", lines: [] },
  {
    name: "an expectation other than 100-continue",
    status: 417,
    requestLine: "GET /server HTTP/1.1",
    lines: ["Expect: something"],
  },
  {
    name: "headers over Node's limit",
    status: 431,
    requestLine: "GET /server HTTP/1.1",
    lines: [`X-Big: ${"a".repeat(20_000)}`],
  },
  { name: "a CONNECT request", status: 400, requestLine: "CONNECT example.com:443 HTTP/1.1", lines: [] },
];

function send(request: Malformed, head: string[]): Promise<RawResponse> {
  return rawRequest(t.port, [request.requestLine, ...head, ...request.lines], request.body ?? "", {
    timeoutMs: 3000,
  });
}

describe("a framing or parse error", () => {
  it.each(malformed)("is answered as such with the right Host and no Origin: $name", async (request) => {
    const response = await send(request, [`Host: 127.0.0.1:${t.port}`, auth]);
    expect(response.status, response.body).toBe(request.status);
  });

  it.each(malformed)("gets 403 origin_forbidden from a foreign Origin: $name", async (request) => {
    for (const head of [
      [`Host: 127.0.0.1:${t.port}`, auth, "Origin: http://evil.example"],
      // Where the Origin line comes in the head does not matter.
      ["Origin: http://evil.example", auth, `Host: 127.0.0.1:${t.port}`],
    ]) {
      const response = await send(request, head);
      expectProblem(response, 403, "origin_forbidden");
      expect(response.closed).toBe(true);
    }
  });

  it.each(malformed)("gets 403 host_forbidden with a foreign Host: $name", async (request) => {
    const response = await send(request, ["Host: evil.example", auth]);
    expectProblem(response, 403, "host_forbidden");
    expect(response.closed).toBe(true);
  });

  it.each(malformed)("gets 401 without the token, whatever its Origin: $name", async (request) => {
    const response = await send(request, [`Host: 127.0.0.1:${t.port}`, "Origin: http://evil.example"]);
    // Only these two are told to anyone: they say nothing about the daemon.
    if (request.status === 431) expectProblem(response, 431, "request_headers_too_large");
    else expectProblem(response, 401, "authentication_required");
  });
});

describe("a head Node rejects after reading it in several parts", () => {
  // Node hands over only the bytes of the read whose parse failed: the lines before it are gone.
  const start = "POST /small HTTP/1.1\r\n";
  const failing = `Content-Type: application/json\r\nContent-Length: abc\r\n\r\n`;

  it("judges the lines of the failing read: a foreign Origin there gets 403", async () => {
    const conversation = await rawConversation(t.port, [
      `${start}X-Padding: 1\r\n`,
      `Host: 127.0.0.1:${t.port}\r\n${auth}\r\nOrigin: http://evil.example\r\n${failing}`,
    ]);
    expect(conversation.responses).toHaveLength(1);
    expectProblem(conversation.responses[0]!, 403, "origin_forbidden");
  });

  it("takes a token it cannot see for none: 401", async () => {
    const conversation = await rawConversation(t.port, [
      `${start}${auth}\r\n`,
      `Host: 127.0.0.1:${t.port}\r\n${failing}`,
    ]);
    expect(conversation.responses).toHaveLength(1);
    expectProblem(conversation.responses[0]!, 401, "authentication_required");
  });

  it("does not miss a Host it cannot see: the framing error, not a Host problem", async () => {
    const conversation = await rawConversation(t.port, [
      `${start}Host: 127.0.0.1:${t.port}\r\n`,
      `${auth}\r\n${failing}`,
    ]);
    expect(conversation.responses).toHaveLength(1);
    expectProblem(conversation.responses[0]!, 400, "invalid_request");
    expect(JSON.parse(conversation.responses[0]!.body).detail).toMatch(/not valid HTTP\/1\.1/);
  });
});
