/** Requests Node would answer by itself (or not at all) get problem JSON too, after the token check. */
import { describe, expect, it } from "vitest";
import { expectProblem, rawConversation, rawRequest } from "./raw-http.js";
import { token, validHead, withTestApp } from "./test-app.js";

const t = withTestApp();

const auth = `Authorization: Bearer ${token}`;

describe("a request without Host", () => {
  it("gets 400 invalid_request problem JSON with the token and closes", async () => {
    const response = await rawRequest(t.port, ["GET /server HTTP/1.1", auth]);
    expectProblem(response, 400, "invalid_request");
    expect(JSON.parse(response.body).detail).toBe("a request must carry exactly one Host header");
    expect(response.closed).toBe(true);
  });

  it("gets 401 without the token: the token is checked first", async () => {
    const response = await rawRequest(t.port, ["GET /server HTTP/1.1"]);
    expectProblem(response, 401, "authentication_required");
    expect(response.headers["www-authenticate"]).toBe("Bearer");
  });

  it("gets the same answer over HTTP/1.0", async () => {
    expectProblem(await rawRequest(t.port, ["GET /server HTTP/1.0", auth]), 400, "invalid_request");
  });
});

describe("Expect", () => {
  it("answers an expectation other than 100-continue with 417 expectation_failed", async () => {
    for (const expectation of ["something", "100-continue, something", "200-ok"]) {
      const response = await rawRequest(t.port, [
        "GET /server HTTP/1.1",
        ...validHead(t.port),
        `Expect: ${expectation}`,
      ]);
      expectProblem(response, 417, "expectation_failed");
    }
  });

  it("checks the token before the expectation", async () => {
    const response = await rawRequest(t.port, [
      "GET /server HTTP/1.1",
      `Host: 127.0.0.1:${t.port}`,
      "Expect: something",
    ]);
    expectProblem(response, 401, "authentication_required");
  });

  it("sends 100 Continue only once the request passed the checks", async () => {
    const json = "Content-Type: application/json";
    const head = (path: string, lines: readonly string[]) =>
      `${[`POST ${path} HTTP/1.1`, ...lines, "Expect: 100-continue", "Content-Length: 12"].join("\r\n")}\r\n\r\n`;
    const accepted = await rawConversation(
      t.port,
      [head("/small", [...validHead(t.port), json]), '{"text":"a"}'],
      { idleMs: 300 },
    );
    expect(accepted.responses.map((response) => response.status)).toEqual([100, 200]);
    expect(JSON.parse(accepted.responses[1]!.body)).toEqual({ text: "a" });

    for (const [label, path, lines, status] of [
      ["no token", "/small", [`Host: 127.0.0.1:${t.port}`, json], 401],
      ["foreign origin", "/small", [...validHead(t.port), json, "Origin: http://evil.example"], 403],
      ["unknown path", "/nowhere", [...validHead(t.port), json], 404],
      ["wrong media type", "/small", [...validHead(t.port), "Content-Type: text/plain"], 415],
      ["no media type", "/small", validHead(t.port), 415],
    ] as const) {
      // The client waits for 100 Continue before sending its body; it gets the refusal instead.
      const refused = await rawConversation(t.port, [head(path, lines)], { idleMs: 300 });
      expect(
        refused.responses.map((response) => response.status),
        label,
      ).toEqual([status]);
      expect(refused.closed, label).toBe(true);
    }
  });
});

describe("CONNECT", () => {
  it("answers 400 problem JSON (the daemon is no proxy) with the token and 401 without", async () => {
    const connectHead = ["CONNECT example.com:443 HTTP/1.1", `Host: 127.0.0.1:${t.port}`];
    const authorized = await rawRequest(t.port, [...connectHead, auth]);
    expectProblem(authorized, 400, "invalid_request");
    expect(JSON.parse(authorized.body).detail).toMatch(/CONNECT is not supported/);
    expect(authorized.closed).toBe(true);
    const anonymous = await rawRequest(t.port, connectHead);
    expectProblem(anonymous, 401, "authentication_required");
  });

  it("checks Host like any request: a proxy's CONNECT naming its target as Host gets 403", async () => {
    const response = await rawRequest(t.port, [
      "CONNECT example.com:443 HTTP/1.1",
      "Host: example.com:443",
      auth,
    ]);
    expectProblem(response, 403, "host_forbidden");
  });
});

describe("requests Node cannot parse", () => {
  it("answers a malformed request line with 400 problem JSON, after the token check", async () => {
    expectProblem(await rawRequest(t.port, ["GET /server HTTP/1.1 extra", auth]), 400, "invalid_request");
    expectProblem(await rawRequest(t.port, ["GARBAGE"]), 401, "authentication_required");
  });

  it("answers a malformed header line with 400 problem JSON", async () => {
    const response = await rawRequest(t.port, ["GET /server HTTP/1.1", ...validHead(t.port), "No Colon"]);
    expectProblem(response, 400, "invalid_request");
    expect(response.closed).toBe(true);
  });

  it("answers headers over Node's limit with 431 request_headers_too_large", async () => {
    const response = await rawRequest(t.port, [
      "GET /server HTTP/1.1",
      ...validHead(t.port),
      `X-Big: ${"a".repeat(20_000)}`,
    ]);
    expectProblem(response, 431, "request_headers_too_large");
    expect(response.closed).toBe(true);
  });

  it("answers oversized chunk extensions with 413 problem JSON", async () => {
    const response = await rawRequest(
      t.port,
      [
        "POST /small HTTP/1.1",
        ...validHead(t.port),
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
      ],
      `1;${"x".repeat(20_000)}\r\n{\r\n`,
    );
    expectProblem(response, 413, "request_body_too_large");
  });

  it("still answers a valid request afterwards", async () => {
    const response = await rawRequest(t.port, ["GET /server HTTP/1.1", ...validHead(t.port)]);
    expect(response.status).toBe(200);
  });
});
