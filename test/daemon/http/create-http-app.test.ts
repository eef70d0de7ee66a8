import { describe, expect, it } from "vitest";
import { rawRequest } from "./raw-http.js";
import { token, validHead, withTestApp } from "./test-app.js";

const t = withTestApp();

async function problemOf(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  const body = (await response.json()) as Record<string, unknown>;
  expect(body.type).toBe("about:blank");
  expect(body.status).toBe(response.status);
  expect(typeof body.title).toBe("string");
  expect(typeof body.detail).toBe("string");
  return body;
}

function jsonBody(value: unknown): RequestInit {
  return { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(value) };
}

function put(value: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "PUT",
    headers: { "content-type": "application/json", ...headers },
    body: typeof value === "string" ? value : JSON.stringify(value),
  };
}

describe("authentication", () => {
  it("answers a request without a token with 401 authentication_required and WWW-Authenticate", async () => {
    const response = await fetch(`${t.base}/server`);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(response.headers.get("connection")).toBe("close");
    expect((await problemOf(response)).code).toBe("authentication_required");
  });

  it("refuses a wrong token, a token of another length, and another scheme", async () => {
    for (const authorization of [
      `Bearer ${token.slice(0, -1)}x`,
      `Bearer ${token}x`,
      "Bearer short",
      `Basic ${Buffer.from(`user:${token}`).toString("base64")}`,
      token,
      "Bearer",
    ]) {
      const response = await fetch(`${t.base}/server`, { headers: { authorization } });
      expect(response.status, authorization).toBe(401);
      expect((await problemOf(response)).code).toBe("authentication_required");
    }
  });

  it("accepts the right token with the scheme in any case", async () => {
    const response = await fetch(`${t.base}/server`, { headers: { authorization: `bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ state: "ready" });
  });

  it("asks for the token on unknown paths too, before saying 404", async () => {
    const response = await fetch(`${t.base}/no/such/thing`);
    expect(response.status).toBe(401);
  });

  it("refuses two Authorization headers even if one is right", async () => {
    const response = await rawRequest(t.port, [
      "GET /server HTTP/1.1",
      `Host: 127.0.0.1:${t.port}`,
      `Authorization: Bearer ${token}`,
      "Authorization: Bearer wrong-token-but-long-enough",
    ]);
    expect(response.status).toBe(401);
  });

  it("answers 401 at once to a huge Content-Length without waiting for the body", async () => {
    // The body is never sent: a server that read it first would answer only at its request timeout (60 s).
    const response = await rawRequest(
      t.port,
      [
        "PUT /things/a HTTP/1.1",
        `Host: 127.0.0.1:${t.port}`,
        "Content-Type: application/json",
        "Content-Length: 72200001",
      ],
      "",
      { timeoutMs: 5000 },
    );
    expect(response.status).toBe(401);
    expect(response.headers["www-authenticate"]).toBe("Bearer");
    expect(response.closed).toBe(true);
    expect(JSON.parse(response.body).code).toBe("authentication_required");
  });

  it("answers 401 to an unparsable Content-Length without a token and 400 with one", async () => {
    const head = ["PUT /things/a HTTP/1.1", `Host: 127.0.0.1:${t.port}`, "Content-Length: invalid"];
    const anonymous = await rawRequest(t.port, head);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(anonymous.body).code).toBe("authentication_required");
    const authorized = await rawRequest(t.port, [...head, `Authorization: Bearer ${token}`]);
    expect(authorized.status).toBe(400);
    expect(JSON.parse(authorized.body).code).toBe("invalid_request");
    expect(authorized.closed).toBe(true);
  });

  it("refuses ambiguous framing (two Content-Lengths) with 400 problem JSON", async () => {
    const response = await rawRequest(
      t.port,
      [
        "POST /small HTTP/1.1",
        ...validHead(t.port),
        "Content-Type: application/json",
        "Content-Length: 12",
        "Content-Length: 13",
      ],
      '{"text":"a"}',
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).code).toBe("invalid_request");
  });
});

describe("Host check", () => {
  const get = (host: string, authorization = `Bearer ${token}`) =>
    rawRequest(t.port, ["GET /server HTTP/1.1", `Host: ${host}`, `Authorization: ${authorization}`]);

  it("accepts 127.0.0.1, localhost and [::1] with the daemon's port", async () => {
    for (const host of [
      `127.0.0.1:${t.port}`,
      `localhost:${t.port}`,
      `LOCALHOST:${t.port}`,
      `[::1]:${t.port}`,
    ]) {
      expect((await get(host)).status, host).toBe(200);
    }
  });

  it("answers 403 host_forbidden to any other Host", async () => {
    for (const host of [
      "127.0.0.1",
      "localhost",
      `evil.example:${t.port}`,
      `127.0.0.1:${t.port + 1}`,
      `localhost.evil.example:${t.port}`,
      `127.0.0.2:${t.port}`,
    ]) {
      const response = await get(host);
      expect(response.status, host).toBe(403);
      expect(JSON.parse(response.body).code).toBe("host_forbidden");
      expect(response.headers["content-type"]).toBe("application/problem+json");
    }
  });

  it("checks the token before the Host", async () => {
    const response = await get("evil.example", "Bearer nope-nope-nope-nope");
    expect(response.status).toBe(401);
  });

  it("refuses a request with two Host headers", async () => {
    const response = await rawRequest(t.port, [
      "GET /server HTTP/1.1",
      `Host: 127.0.0.1:${t.port}`,
      "Host: evil.example",
      `Authorization: Bearer ${token}`,
    ]);
    expect([400, 403]).toContain(response.status);
    expect(["host_forbidden", "invalid_request"]).toContain(JSON.parse(response.body).code);
  });
});

describe("request bodies", () => {
  it("passes a valid JSON body to the handler", async () => {
    const response = await t.call("/small", jsonBody({ text: "hi" }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: "hi" });
  });

  it("accepts a utf-8 charset parameter and refuses other charsets with 415", async () => {
    const ok = await t.call("/small", {
      method: "POST",
      headers: { "content-type": "application/json; charset=UTF-8" },
      body: '{"text":"é"}',
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ text: "é" });
    const latin = await t.call("/small", {
      method: "POST",
      headers: { "content-type": "application/json; charset=latin1" },
      body: '{"text":"x"}',
    });
    expect(latin.status).toBe(415);
    expect((await problemOf(latin)).code).toBe("unsupported_media_type");
  });

  it("answers 415 unsupported_media_type to a body that is not application/json", async () => {
    for (const contentType of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/jsonx",
      "application/json-seq",
    ]) {
      const response = await t.call("/small", {
        method: "POST",
        headers: { "content-type": contentType },
        body: '{"text":"x"}',
      });
      expect(response.status, contentType).toBe(415);
      expect((await problemOf(response)).code).toBe("unsupported_media_type");
    }
  });

  it("answers 415 to a body without a Content-Type", async () => {
    const response = await rawRequest(
      t.port,
      ["POST /small HTTP/1.1", ...validHead(t.port), "Content-Length: 12"],
      '{"text":"a"}',
    );
    expect(response.status).toBe(415);
    expect(JSON.parse(response.body).code).toBe("unsupported_media_type");
  });

  it("answers 400 invalid_request to malformed JSON and invalid UTF-8", async () => {
    for (const body of ['{"text":', "{'text':'x'}", '{"text":"x"} trailing', "NaN"]) {
      const response = await t.call("/small", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(response.status, body).toBe(400);
      const problem = await problemOf(response);
      expect(problem.code).toBe("invalid_request");
      expect(problem.detail).toMatch(/not valid JSON/);
    }
    const bytes = Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const response = await t.call("/small", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: bytes,
    });
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toMatch(/UTF-8/);
  });

  it("refuses __proto__ and constructor.prototype keys, even escaped", async () => {
    for (const body of [
      '{"text":"x","__proto__":{"polluted":true}}',
      '{"text":"x","\\u005f_proto__":{"polluted":true}}',
      '{"text":"x","nested":[{"constructor":{"prototype":{"polluted":true}}}]}',
    ]) {
      const response = await t.call("/small", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(response.status, body).toBe(400);
      expect((await problemOf(response)).detail).toMatch(/forbidden key/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a body nested deeper than 64 levels", async () => {
    const body = `{"text":${"[".repeat(5000)}${"]".repeat(5000)}}`;
    const response = await t.call("/small", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toMatch(/nests deeper/);
  });

  it("rejects unknown fields instead of dropping them", async () => {
    const before = t.received.length;
    const response = await t.call("/small", jsonBody({ text: "x", extra: 1 }));
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.code).toBe("invalid_request");
    expect(problem.detail).toBe("body contains an unknown field: extra");
    expect(t.received.length).toBe(before);
  });

  it("does not coerce body values and names the field in the detail", async () => {
    const response = await t.call("/small", jsonBody({ text: 5 }));
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toBe("body/text must be string");
    const missing = await t.call("/small", jsonBody({}));
    expect((await problemOf(missing)).detail).toMatch(/^body must have required properties text/);
    const array = await t.call("/small", jsonBody([]));
    expect((await problemOf(array)).detail).toBe("body must be object");
  });

  it("reports the union branch the client meant", async () => {
    const unknownField = await t.call("/things/a", put({ kind: "continue", x: 1 }));
    expect(unknownField.status).toBe(400);
    expect((await problemOf(unknownField)).detail).toBe("body contains an unknown field: x");
    const wrongType = await t.call("/things/a", put({ kind: "message", text: 1 }));
    expect((await problemOf(wrongType)).detail).toBe("body/text must be string");
    const unknownKind = await t.call("/things/a", put({ kind: "other" }));
    expect((await problemOf(unknownKind)).detail).toBe('body/kind must be one of "message", "continue"');
  });

  it("answers 400 when a required body is missing", async () => {
    const response = await t.call("/small", { method: "POST" });
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toBe("body must be object");
  });

  it("refuses a body on a route that takes none but tolerates {}", async () => {
    const withBody = await t.call("/things/a", {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: '{"force":true}',
    });
    expect(withBody.status).toBe(400);
    expect((await problemOf(withBody)).detail).toMatch(/takes no request body/);
    const empty = await t.call("/things/a", {
      method: "DELETE",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(empty.status).toBe(200);
    const none = await t.call("/things/a", { method: "DELETE" });
    expect(none.status).toBe(200);
  });

  it("answers 413 to a body over 64 KiB", async () => {
    const response = await t.call("/small", jsonBody({ text: "x".repeat(64 * 1024) }));
    expect(response.status).toBe(413);
    const problem = await problemOf(response);
    expect(problem.code).toBe("request_body_too_large");
    expect(problem.detail).toBe("the request body exceeds 65536 bytes");
  });

  it("answers 413 from the declared Content-Length without reading the body", async () => {
    const response = await rawRequest(
      t.port,
      [
        "POST /small HTTP/1.1",
        ...validHead(t.port),
        "Content-Type: application/json",
        "Content-Length: 100000",
      ],
      "",
      { timeoutMs: 5000 },
    );
    expect(response.status).toBe(413);
    expect(response.closed).toBe(true);
  });

  it("lets an input route take up to 8 MiB and no more", async () => {
    const big = await t.call("/things/a", put({ kind: "message", text: "y".repeat(4 * 1024 * 1024) }));
    expect(big.status).toBe(202);
    expect(await big.json()).toEqual({ kind: "message", length: 4 * 1024 * 1024 });
    const tooBig = await t.call("/things/a", put({ kind: "message", text: "y".repeat(8 * 1024 * 1024) }));
    expect(tooBig.status).toBe(413);
    expect((await problemOf(tooBig)).detail).toBe(`the request body exceeds ${8 * 1024 * 1024} bytes`);
  });

  it("answers 415 unsupported_encoding to a compressed body and accepts identity", async () => {
    const gzip = await t.call("/small", {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: '{"text":"x"}',
    });
    expect(gzip.status).toBe(415);
    expect((await problemOf(gzip)).code).toBe("unsupported_encoding");
    const identity = await t.call("/small", {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "identity" },
      body: '{"text":"x"}',
    });
    expect(identity.status).toBe(200);
  });

  it("checks the token before the content encoding", async () => {
    const response = await fetch(`${t.base}/small`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: "{}",
    });
    expect(response.status).toBe(401);
  });

  it("answers 400 when the body is shorter than its Content-Length", async () => {
    const response = await rawRequest(
      t.port,
      ["POST /small HTTP/1.1", ...validHead(t.port), "Content-Type: application/json", "Content-Length: 50"],
      '{"text":"a"}',
      { endAfterWrite: true },
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).code).toBe("invalid_request");
  });
});

describe("query parameters", () => {
  it("converts declared parameters to their schema type", async () => {
    const response = await t.call("/things/a?tail=5");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: "a", query: { tail: 5 }, stream: false });
  });

  it("answers 400 to an unknown parameter", async () => {
    const response = await t.call("/things/a?tail=5&foo=1");
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toBe("query contains an unknown or repeated parameter: foo");
  });

  it("answers 400 to a repeated parameter", async () => {
    const response = await t.call("/things/a?tail=5&tail=6");
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toBe("query contains an unknown or repeated parameter: tail");
  });

  it("answers 400 to any parameter on a route that declares none", async () => {
    const response = await t.call("/server?verbose=1");
    expect(response.status).toBe(400);
    const empty = await t.call("/server?=x");
    expect(empty.status).toBe(400);
  });

  it("answers 400 to a value outside its type or range", async () => {
    const text = await t.call("/things/a?tail=abc");
    expect((await problemOf(text)).detail).toBe("query/tail must be integer");
    const range = await t.call("/things/a?tail=500");
    expect((await problemOf(range)).detail).toBe("query/tail must be <= 200");
  });
});

describe("routing", () => {
  it("answers 404 resource_not_found to an unknown path", async () => {
    const response = await t.call("/nowhere");
    expect(response.status).toBe(404);
    const problem = await problemOf(response);
    expect(problem.code).toBe("resource_not_found");
    expect(problem.detail).toBe("no resource at /nowhere");
  });

  it("answers 405 method_not_allowed with Allow to a wrong method on a known path", async () => {
    for (const method of ["POST", "PATCH", "OPTIONS"]) {
      const response = await t.call("/things/a", { method });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("DELETE, GET, PUT");
      expect((await problemOf(response)).code).toBe("method_not_allowed");
    }
    const head = await t.call("/things/a", { method: "HEAD" });
    expect(head.status).toBe(405);
    expect(head.headers.get("allow")).toBe("DELETE, GET, PUT");
  });

  it("decides 405 before looking at the body", async () => {
    const response = await t.call("/things/a", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(response.status).toBe(405);
  });

  it("answers a malformed URL with 400 problem JSON, after the token check", async () => {
    const anonymous = await rawRequest(t.port, ["GET /things/%zz HTTP/1.1", `Host: 127.0.0.1:${t.port}`]);
    expect(anonymous.status).toBe(401);
    const response = await rawRequest(t.port, ["GET /things/%zz HTTP/1.1", ...validHead(t.port)]);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({
      code: "invalid_request",
      detail: "the request URL is malformed",
    });
  });
});

describe("content negotiation", () => {
  it("answers JSON without Accept, with */* and with application/json", async () => {
    for (const accept of [undefined, "*/*", "application/json", "application/*", "text/html, */*;q=0.1"]) {
      const headers: Record<string, string> = accept === undefined ? {} : { accept };
      const response = await t.call("/things/a", { headers });
      expect(response.status, accept).toBe(200);
      expect(((await response.json()) as { stream: boolean }).stream).toBe(false);
    }
  });

  it("chooses the event stream only when the client names it", async () => {
    const response = await t.call("/things/a", { headers: { accept: "text/event-stream" } });
    expect(((await response.json()) as { stream: boolean }).stream).toBe(true);
    const preferred = await t.call("/things/a", {
      headers: { accept: "application/json;q=0.5, text/event-stream" },
    });
    expect(((await preferred.json()) as { stream: boolean }).stream).toBe(true);
  });

  it("answers 406 not_acceptable to an Accept the route cannot satisfy", async () => {
    for (const [path, accept] of [
      ["/server", "text/html"],
      ["/server", "text/event-stream"],
      ["/things/a", "text/html, application/json;q=0"],
      ["/server", "application/json;q=0"],
    ] as const) {
      const response = await t.call(path, { headers: { accept } });
      expect(response.status, `${path} ${accept}`).toBe(406);
      expect((await problemOf(response)).code).toBe("not_acceptable");
    }
  });
});

describe("responses", () => {
  it("sends JSON successes as exactly application/json with cache-control no-store", async () => {
    const response = await t.call("/server");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("no-store");
  });

  it("renders a thrown ProblemError with its status, code and headers", async () => {
    const response = await t.call("/busy");
    expect(response.status).toBe(409);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(await problemOf(response)).toEqual({
      type: "about:blank",
      title: "Session busy",
      status: 409,
      detail: "a turn is running",
      code: "session_busy",
    });
  });

  it("answers an unexpected exception with a generic 500 that leaks nothing", async () => {
    const response = await t.call("/boom");
    expect(response.status).toBe(500);
    const problem = await problemOf(response);
    expect(problem.code).toBe("internal_error");
    expect(JSON.stringify(problem)).not.toMatch(/secret|passwd/);
  });
});

describe("draining", () => {
  it("answers work-starting routes with 503 daemon_unavailable while GET /server still answers", async () => {
    t.draining.value = true;
    try {
      const work = await t.call("/work", { method: "POST" });
      expect(work.status).toBe(503);
      expect((await problemOf(work)).code).toBe("daemon_unavailable");
      const input = await t.call("/things/a", put({ kind: "continue" }));
      expect(input.status).toBe(503);
      const server = await t.call("/server");
      expect(server.status).toBe(200);
      expect(await server.json()).toEqual({ state: "draining" });
    } finally {
      t.draining.value = false;
    }
    expect((await t.call("/work", { method: "POST" })).status).toBe(202);
  });
});

describe("robustness", () => {
  it("survives every kind of malformed request and then answers a valid one", async () => {
    const port = t.port;
    const post = (body: string, contentType = "application/json") =>
      t.call("/small", { method: "POST", headers: { "content-type": contentType }, body });
    const attempts: Array<[string, number, () => Promise<Response | { status: number }>]> = [
      ["garbage request line", 401, () => rawRequest(port, ["GARBAGE"])],
      ["unknown HTTP version", 400, () => rawRequest(port, ["GET / HTTP/9.9", ...validHead(port)])],
      [
        "negative Content-Length",
        400,
        () => rawRequest(port, ["POST /small HTTP/1.1", ...validHead(port), "Content-Length: -1"]),
      ],
      [
        "Content-Length 1x",
        400,
        () => rawRequest(port, ["POST /small HTTP/1.1", ...validHead(port), "Content-Length: 1x"]),
      ],
      [
        "bad chunk size",
        400,
        () =>
          rawRequest(
            port,
            [
              "POST /small HTTP/1.1",
              ...validHead(port),
              "Transfer-Encoding: chunked",
              "Content-Type: application/json",
            ],
            "zz\r\nnot hex\r\n",
          ),
      ],
      [
        "Transfer-Encoding and Content-Length",
        400,
        () =>
          rawRequest(
            port,
            ["POST /small HTTP/1.1", ...validHead(port), "Transfer-Encoding: chunked", "Content-Length: 5"],
            "0\r\n\r\n",
          ),
      ],
      [
        "Transfer-Encoding gzip",
        400,
        () => rawRequest(port, ["POST /small HTTP/1.1", ...validHead(port), "Transfer-Encoding: gzip"]),
      ],
      [
        "oversized headers",
        431,
        () => rawRequest(port, ["GET /server HTTP/1.1", ...validHead(port), `X-Big: ${"a".repeat(20_000)}`]),
      ],
      [
        "header line without colon",
        400,
        () => rawRequest(port, ["GET /server HTTP/1.1", ...validHead(port), "Bad Header Line"]),
      ],
      [
        "overlong path parameter",
        400,
        () => rawRequest(port, [`GET /things/${"a".repeat(200)} HTTP/1.1`, ...validHead(port)]),
      ],
      ["NUL body", 400, () => post("\u0000")],
      ["null body", 400, () => post("null")],
      ["string body", 400, () => post('"text"')],
      ["content type ;;;", 415, () => post("{}", ";;;")],
      ["thrice repeated query", 400, () => t.call("/things/a?tail=1&tail=2&tail=3")],
      ["undecodable query name", 400, () => t.call("/things/a?%zz=1")],
      ["unacceptable Accept", 406, () => t.call("/things/a", { headers: { accept: "image/png" } })],
      ["handler exception", 500, () => t.call("/boom")],
    ];
    for (const [name, status, attempt] of attempts) {
      const result = await attempt();
      expect(result.status, name).toBe(status);
      if (result instanceof Response)
        expect(result.headers.get("content-type"), name).toBe("application/problem+json");
      if (result instanceof Response) await result.arrayBuffer();
    }
    const response = await t.call("/small", jsonBody({ text: "still here" }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: "still here" });
  });

  it("treats an Accept without any readable media range as absent", async () => {
    const response = await t.call("/things/a", { headers: { accept: ",,;q=abc" } });
    expect(response.status).toBe(200);
  });
});
