/** What is decided before a body is read, and what an early answer does to a kept-alive connection. */
import { describe, expect, it } from "vitest";
import { expectProblem, rawConversation, rawRequest } from "./raw-http.js";
import { validHead, withTestApp } from "./test-app.js";

const t = withTestApp();

function head(requestLine: string, lines: string[]): string {
  return `${[requestLine, ...validHead(t.port), ...lines].join("\r\n")}\r\n\r\n`;
}

describe("the route is decided before the body", () => {
  it("answers 404 to an unknown path whatever JSON body it carries", async () => {
    for (const body of ['{"kind":"message","text":"hi"}', "{not json", "[]"]) {
      const response = await t.call("/nowhere", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(response.status, body).toBe(404);
      expect(((await response.json()) as { code: string }).code).toBe("resource_not_found");
    }
  });

  it("answers 404 at once to an unknown path with a huge declared body", async () => {
    const response = await rawRequest(
      t.port,
      ["POST /nowhere HTTP/1.1", ...validHead(t.port), "Content-Type: text/plain", "Content-Length: 9000000"],
      "",
      { timeoutMs: 3000 },
    );
    expectProblem(response, 404, "resource_not_found");
    expect(response.closed).toBe(true);
  });
});

describe("the size is decided before the media type", () => {
  it("answers 413 at once to a Content-Length over the limit, with or without a Content-Type", async () => {
    for (const lines of [[], ["Content-Type: text/plain"], ["Content-Type: application/json"]]) {
      const response = await rawRequest(
        t.port,
        ["POST /small HTTP/1.1", ...validHead(t.port), ...lines, "Content-Length: 100000"],
        "",
        { timeoutMs: 3000 },
      );
      expectProblem(response, 413, "request_body_too_large");
      expect(JSON.parse(response.body).detail).toBe("the request body exceeds 65536 bytes");
      expect(response.closed).toBe(true);
    }
  });

  it("measures against the route's own limit", async () => {
    const within = await rawRequest(
      t.port,
      ["PUT /things/a HTTP/1.1", ...validHead(t.port), "Content-Length: 100000"],
      "x".repeat(100_000),
    );
    expectProblem(within, 415, "unsupported_media_type");
    const over = await rawRequest(
      t.port,
      ["PUT /things/a HTTP/1.1", ...validHead(t.port), `Content-Length: ${8 * 1024 * 1024 + 1}`],
      "",
      { timeoutMs: 3000 },
    );
    expectProblem(over, 413, "request_body_too_large");
  });
});

describe("an early answer on a kept-alive connection", () => {
  it("keeps the connection when the unread body is within the route's limit, and discards that body", async () => {
    // The bodies look like requests: they must be discarded as bodies, never answered.
    const smuggled = head("DELETE /things/a HTTP/1.1", []);
    const length = `Content-Length: ${Buffer.byteLength(smuggled)}`;
    const conversation = await rawConversation(t.port, [
      // Answered before its body is sent, as a client that writes head and body apart sees it.
      head("POST /nowhere HTTP/1.1", ["Content-Type: application/json", length]),
      smuggled,
      `${head("POST /small HTTP/1.1", [length])}${smuggled}`,
      `${head("PUT /things/a?x=1 HTTP/1.1", ["Content-Type: application/json", length])}${smuggled}`,
      head("GET /server HTTP/1.1", []),
    ]);
    expect(conversation.responses.map((response) => response.status)).toEqual([404, 415, 400, 200]);
    expect(conversation.responses[0]!.headers.connection).toBe("keep-alive");
    expect(JSON.parse(conversation.responses[3]!.body)).toEqual({ state: "ready" });
    expect(conversation.closed).toBe(false);
  });

  it("closes the connection when the unread body is over the route's limit or chunked", async () => {
    const next = head("GET /server HTTP/1.1", []);
    for (const [requestLine, lines, status] of [
      ["POST /nowhere HTTP/1.1", ["Content-Type: application/json", "Content-Length: 70000"], 404],
      ["POST /things/a HTTP/1.1", ["Content-Type: application/json", "Content-Length: 70000"], 405],
      ["POST /small HTTP/1.1", ["Content-Length: 70000"], 413],
      ["POST /nowhere HTTP/1.1", ["Content-Type: application/json", "Transfer-Encoding: chunked"], 404],
      ["POST /small HTTP/1.1", ["Transfer-Encoding: chunked"], 415],
    ] as const) {
      const conversation = await rawConversation(t.port, [head(requestLine, [...lines]), next]);
      const label = `${requestLine} ${lines.join(" ")}`;
      expect(
        conversation.responses.map((response) => response.status),
        label,
      ).toEqual([status]);
      expect(conversation.responses[0]!.headers.connection, label).toBe("close");
      expect(conversation.closed, label).toBe(true);
    }
  });

  it("closes the connection when a successful answer leaves an unbounded body unread", async () => {
    const conversation = await rawConversation(t.port, [
      head("GET /server HTTP/1.1", ["Transfer-Encoding: chunked"]),
    ]);
    expect(conversation.responses.map((response) => response.status)).toEqual([200]);
    expect(conversation.closed).toBe(true);
  });
});
