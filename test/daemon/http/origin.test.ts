import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RawResponse, rawRequest } from "./raw-http.js";
import { startTestApp, type TestApp, token, validHead, withTestApp } from "./test-app.js";

const t = withTestApp();

/** POST /small with a complete JSON body and the given extra header lines. */
function post(lines: string[], head = validHead(t.port)): Promise<RawResponse> {
  const body = '{"text":"from a page"}';
  return rawRequest(
    t.port,
    [
      "POST /small HTTP/1.1",
      ...head,
      "Content-Type: application/json",
      `Content-Length: ${body.length}`,
      ...lines,
    ],
    body,
  );
}

function expectOriginForbidden(response: RawResponse, label: string): void {
  expect(response.status, label).toBe(403);
  expect(response.headers["content-type"], label).toBe("application/problem+json");
  expect(JSON.parse(response.body), label).toMatchObject({
    type: "about:blank",
    title: "Origin forbidden",
    status: 403,
    code: "origin_forbidden",
  });
  expect(response.closed, label).toBe(true);
}

describe("origin check", () => {
  it("refuses requests from any other origin with 403 origin_forbidden", async () => {
    const before = t.received.length;
    for (const origin of [
      "http://evil.example",
      `http://evil.example:${t.port}`,
      `http://127.0.0.1:${t.port + 1}`,
      `https://127.0.0.1:${t.port}`,
      "http://127.0.0.1",
      `http://127.0.0.2:${t.port}`,
      `http://localhost.evil.example:${t.port}`,
      `http://127.0.0.1:${t.port}/`,
      "null",
      "",
    ]) {
      expectOriginForbidden(await post([`Origin: ${origin}`]), origin);
    }
    expect(t.received.length).toBe(before);
  });

  it("serves pages of the daemon's own origin, under every name the Host check allows", async () => {
    for (const origin of [
      `http://127.0.0.1:${t.port}`,
      `http://localhost:${t.port}`,
      `http://[::1]:${t.port}`,
      `HTTP://LOCALHOST:${t.port}`,
    ]) {
      const response = await post([`Origin: ${origin}`, "Sec-Fetch-Site: same-origin"]);
      expect(response.status, origin).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ text: "from a page" });
    }
  });

  it("lets the daemon's own Origin decide even when the browser calls the request cross-site", async () => {
    // A daemon page at localhost calling 127.0.0.1 is cross-site to the browser, yet the daemon's own.
    const response = await post([`Origin: http://localhost:${t.port}`, "Sec-Fetch-Site: cross-site"]);
    expect(response.status).toBe(200);
  });

  it("serves programs, which send neither Origin nor Sec-Fetch-Site", async () => {
    expect((await post([])).status).toBe(200);
    const fetched = await t.call("/small", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"text":"cli"}',
    });
    expect(fetched.status).toBe(200);
  });

  it("refuses a request without Origin that the browser says another site caused", async () => {
    for (const site of ["cross-site", "same-site", "CROSS-SITE", "something-else"]) {
      expectOriginForbidden(await post([`Sec-Fetch-Site: ${site}`]), site);
    }
    expectOriginForbidden(
      await post(["Sec-Fetch-Site: same-origin", "Sec-Fetch-Site: cross-site"]),
      "repeated Sec-Fetch-Site",
    );
    for (const site of ["same-origin", "none"]) {
      expect((await post([`Sec-Fetch-Site: ${site}`])).status, site).toBe(200);
    }
  });

  it("refuses two Origin headers even if one is the daemon's", async () => {
    expectOriginForbidden(
      await post([`Origin: http://127.0.0.1:${t.port}`, "Origin: http://evil.example"]),
      "two origins",
    );
  });

  it("refuses before reading the body: a huge upload is never waited for", async () => {
    const response = await rawRequest(
      t.port,
      [
        "PUT /things/a HTTP/1.1",
        ...validHead(t.port),
        "Origin: http://evil.example",
        "Content-Type: application/json",
        "Content-Length: 7000000",
      ],
      "",
      { timeoutMs: 3000 },
    );
    expectOriginForbidden(response, "pending body");
  });

  it("checks the token, then the Host, then the Origin", async () => {
    const anonymous = await post(["Origin: http://evil.example"], [`Host: 127.0.0.1:${t.port}`]);
    expect(anonymous.status).toBe(401);
    const wrongHost = await post(
      ["Origin: http://evil.example"],
      ["Host: evil.example", `Authorization: Bearer ${token}`],
    );
    expect(JSON.parse(wrongHost.body).code).toBe("host_forbidden");
  });

  it("refuses a foreign Origin on a request Fastify cannot route (malformed URL)", async () => {
    const response = await rawRequest(t.port, [
      "GET /things/%zz HTTP/1.1",
      ...validHead(t.port),
      "Origin: http://evil.example",
    ]);
    expectOriginForbidden(response, "malformed URL");
  });
});

describe("origin check with extra host names", () => {
  it("takes the extra names of the Host check as own origins too", async () => {
    const app = await startTestApp({ token, extraHosts: ["skein.internal"] });
    try {
      const head = [`Host: skein.internal:${app.port}`, `Authorization: Bearer ${token}`];
      const own = await rawRequest(app.port, [
        "GET /server HTTP/1.1",
        ...head,
        `Origin: http://skein.internal:${app.port}`,
      ]);
      expect(own.status).toBe(200);
      const other = await rawRequest(app.port, [
        "GET /server HTTP/1.1",
        ...head,
        `Origin: http://other.internal:${app.port}`,
      ]);
      expect(other.status).toBe(403);
    } finally {
      await app.close();
    }
  });
});

describe("Host and origin with public URLs (a node URL, a reverse proxy)", () => {
  const publicUrls = ["http://10.0.0.5:7700", "https://skein.example.com"];
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ token, publicUrls });
  });

  afterAll(async () => {
    await app.close();
  });

  function get(host: string, origin?: string): Promise<RawResponse> {
    return rawRequest(app.port, [
      "GET /server HTTP/1.1",
      `Host: ${host}`,
      `Authorization: Bearer ${token}`,
      ...(origin === undefined ? [] : [`Origin: ${origin}`]),
    ]);
  }

  it("accepts each URL's own host and port as Host, and its origin as the page's", async () => {
    for (const host of ["10.0.0.5:7700", "skein.example.com", "SKEIN.example.com:443"]) {
      expect((await get(host)).status, host).toBe(200);
    }
    expect((await get("skein.example.com", "https://skein.example.com")).status).toBe(200);
    expect((await get("10.0.0.5:7700", "http://10.0.0.5:7700")).status).toBe(200);
    // The loopback names still work beside them.
    expect((await get(`127.0.0.1:${app.port}`)).status).toBe(200);
  });

  it("refuses every other name, port and scheme: only what the operator configured passes", async () => {
    const hosts = [
      `10.0.0.5:${app.port}`,
      "10.0.0.5",
      "10.0.0.5:7701",
      "skein.example.com:80",
      "skein.example.com.evil.example",
      "evil.skein.example.com",
      "evil.example",
    ];
    for (const host of hosts) {
      const response = await get(host);
      expect(response.status, host).toBe(403);
      expect(JSON.parse(response.body).code, host).toBe("host_forbidden");
    }
    for (const origin of ["http://skein.example.com", "https://10.0.0.5:7700", "https://evil.example"]) {
      const response = await get("skein.example.com", origin);
      expect(response.status, origin).toBe(403);
      expect(JSON.parse(response.body).code, origin).toBe("origin_forbidden");
    }
  });
});
