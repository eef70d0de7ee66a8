/**
 * Browser sign-in against a real daemon over HTTP: opening a login link spends nothing (a page
 * whose form posts the code); the post works once, from the daemon's own pages only, and sets an
 * HttpOnly, SameSite=Strict cookie; the cookie works on every route as the token does (JSON and streams)
 * and survives a SIGKILL and restart; requests it signs other than GET need the login's CSRF
 * token; another page's requests are refused; logout ends it; nothing with data is reachable
 * without the token or a cookie.
 */
import { spawnSync } from "node:child_process";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonHarness, rawRequest, skeinBin } from "./support/daemon-harness.js";

interface SignedIn {
  cookie: string;
  csrf: string;
}

describe("browser sign-in", () => {
  let app: DaemonHarness;

  beforeAll(async () => {
    app = await DaemonHarness.start();
  });

  afterAll(async () => {
    await app?.close();
  });

  /** A login link, as `skein web --print` prints it. */
  function loginLink(): string {
    const run = spawnSync(process.execPath, [skeinBin, "--home", app.home, "web", "--print"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: app.root, SKEIN_NO_AUTOSTART: "1" },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("works once");
    return run.stdout.trim();
  }

  function get(path: string, headers: Record<string, string> = {}) {
    return rawRequest(app.port, { method: "GET", path, headers });
  }

  function send(method: string, path: string, headers: Record<string, string>, body?: unknown) {
    return rawRequest(app.port, {
      method,
      path,
      headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  /** The post the login page's form sends: no fields, the code in the query. */
  function postLogin(path: string, headers: Record<string, string> = {}, body = "") {
    return rawRequest(app.port, {
      method: "POST",
      path,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": String(body.length),
        ...headers,
      },
      body,
    });
  }

  async function signIn(headers: Record<string, string> = {}): Promise<SignedIn> {
    const url = new URL(loginLink());
    const answer = await postLogin(`${url.pathname}${url.search}`, headers);
    expect(answer.status).toBe(303);
    const setCookie = String(answer.headers["set-cookie"]);
    const cookie = setCookie.split(";")[0]!;
    const session = await get("/web/session", { cookie });
    expect(session.status).toBe(200);
    const csrf = session.json<{ csrf_token: string }>().csrf_token;
    return { cookie, csrf };
  }

  it("prints a link whose page spends nothing, and whose post works once and sets an HttpOnly SameSite=Strict cookie named for the port", async () => {
    const url = new URL(loginLink());
    expect(url.origin).toBe(`http://127.0.0.1:${app.port}`);
    expect(url.pathname).toBe("/login");
    const path = `${url.pathname}${url.search}`;

    // Opening the link (or a chat's link previewer fetching it) spends nothing, however often.
    for (const accept of ["text/html", "*/*"]) {
      const page = await get(path, { accept });
      expect(page.status).toBe(200);
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(page.headers["cache-control"]).toBe("no-store");
      expect(page.headers["referrer-policy"]).toBe("same-origin");
      expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
      expect(page.headers["set-cookie"]).toBeUndefined();
      expect(page.text).toContain(`<form id="login" method="post" action="${path}">`);
      expect(page.text).toContain('<script src="/login/submit.js" defer></script>');
    }
    const script = await get("/login/submit.js");
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.text).toContain('getElementById("login").submit()');

    // A form with fields, or another page's post, spends nothing either.
    const fields = await postLogin(path, {}, "code=x");
    expect(fields.status).toBe(400);
    expect(fields.json()).toMatchObject({ code: "invalid_request" });
    for (const origin of ["https://attacker.example", "null", "http://127.0.0.1:1"]) {
      const foreign = await postLogin(path, { origin, "sec-fetch-site": "cross-site" });
      expect(foreign.status, origin).toBe(403);
      expect(foreign.json()).toMatchObject({ code: "origin_forbidden" });
    }

    const first = await postLogin(path, {
      origin: `http://127.0.0.1:${app.port}`,
      "sec-fetch-site": "same-origin",
    });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe("/");
    expect(first.headers["cache-control"]).toBe("no-store");
    const setCookie = String(first.headers["set-cookie"]);
    expect(setCookie).toMatch(new RegExp(`^skein_session_${app.port}=[A-Za-z0-9_-]{43}; `));
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/");
    expect((await get("/web/session", { cookie: setCookie.split(";")[0]! })).status).toBe(200);

    const again = await postLogin(path);
    expect(again.status).toBe(401);
    expect(again.json()).toMatchObject({ code: "login_code_invalid" });
    expect(again.headers["set-cookie"]).toBeUndefined();
    const page = await postLogin(path, { accept: "text/html" });
    expect(page.status).toBe(401);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("This login link does not work");
    expect(page.text).toContain("skein web");

    const made = await postLogin("/login?code=made-up");
    expect(made.status).toBe(401);
    expect(made.json()).toMatchObject({ code: "login_code_invalid" });
    // The code is put into the page: only the characters of a code the daemon issues.
    expect((await get("/login?code=%22%3E%3Cscript%3E")).status).toBe(400);
  });

  it("signs in a browser that holds another login's cookie: the link's post needs no CSRF token", async () => {
    const earlier = await signIn();
    const later = await signIn({ cookie: earlier.cookie });
    expect(later.cookie).not.toBe(earlier.cookie);
    expect((await get("/web/session", { cookie: later.cookie })).status).toBe(200);
  });

  it("accepts the cookie on every route as the token: listing, creating, inputs, history and the stream", async () => {
    const { cookie, csrf } = await signIn();
    expect((await get("/sessions", { cookie })).status).toBe(200);
    expect((await get("/server", { cookie })).json()).toMatchObject({ state: "ready" });

    const id = uuidv7();
    const created = await send(
      "PUT",
      `/sessions/${id}`,
      { cookie, "x-skein-csrf": csrf, "if-none-match": "*" },
      { kind: "new", workspace: app.workspace },
    );
    expect(created.status).toBe(201);
    expect((await get(`/sessions/${id}/history`, { cookie })).status).toBe(200);

    const stream = await new Promise<{ status: number; type: string | undefined; first: string }>((done) => {
      import("node:http").then(({ request }) => {
        const req = request(
          {
            host: "127.0.0.1",
            port: app.port,
            path: `/sessions/${id}`,
            headers: { host: `127.0.0.1:${app.port}`, cookie, accept: "text/event-stream" },
          },
          (res) => {
            res.once("data", (chunk: Buffer) => {
              done({
                status: res.statusCode ?? 0,
                type: res.headers["content-type"],
                first: chunk.toString(),
              });
              req.destroy();
            });
          },
        );
        req.end();
      });
    });
    expect(stream.status).toBe(200);
    expect(stream.type).toBe("text/event-stream");
    expect(stream.first).toContain('"reset"');
  });

  it("refuses a request signed by cookie without its CSRF token, with another login's, or with a wrong one", async () => {
    const first = await signIn();
    const second = await signIn();
    const put = (headers: Record<string, string>) =>
      send(
        "PUT",
        `/sessions/${uuidv7()}`,
        { "if-none-match": "*", ...headers },
        { kind: "new", workspace: app.workspace },
      );
    const variants: Record<string, string>[] = [
      { cookie: first.cookie },
      { cookie: first.cookie, "x-skein-csrf": second.csrf },
      { cookie: first.cookie, "x-skein-csrf": "x" },
    ];
    for (const headers of variants) {
      const answer = await put(headers);
      expect(answer.status).toBe(403);
      expect(answer.json()).toMatchObject({ code: "csrf_token_invalid" });
    }
    expect((await put({ cookie: first.cookie, "x-skein-csrf": first.csrf })).status).toBe(201);
    // The token needs no CSRF header: programs are not browsers.
    expect((await put({ authorization: `Bearer ${app.token}` })).status).toBe(201);
  });

  it("refuses another page's requests even with the cookie and token: a cross-site form post and a same-site one", async () => {
    const { cookie, csrf } = await signIn();
    const before = (await get("/sessions", { cookie })).json<{ items: unknown[] }>().items.length;
    const form = `kind=new&workspace=${encodeURIComponent(app.workspace)}`;
    const pages: Record<string, string>[] = [
      { origin: "http://evil.example", "sec-fetch-site": "cross-site" },
      { origin: "http://127.0.0.1:1", "sec-fetch-site": "same-site" },
      { origin: "null" },
    ];
    for (const headers of pages) {
      const answer = await rawRequest(app.port, {
        method: "PUT",
        path: `/sessions/${uuidv7()}`,
        headers: {
          cookie,
          "x-skein-csrf": csrf,
          "if-none-match": "*",
          "content-type": "application/x-www-form-urlencoded",
          ...headers,
        },
        body: form,
      });
      expect(answer.status).toBe(403);
      expect(answer.json()).toMatchObject({ code: "origin_forbidden" });
    }
    expect((await get("/sessions", { cookie })).json<{ items: unknown[] }>().items).toHaveLength(before);
  });

  it("reaches nothing with data without the token or a cookie; the page and its assets are public", async () => {
    for (const path of ["/sessions", "/server", "/web/session", "/openapi.json", `/sessions/${uuidv7()}`]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(401);
      expect(answer.json()).toMatchObject({ code: "authentication_required" });
    }
    expect((await send("POST", "/web/logout", {})).status).toBe(401);
    expect((await get("/sessions", { cookie: `skein_session_${app.port}=forged` })).status).toBe(401);

    const page = await get("/", { accept: "text/html" });
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    const script = /src="\/assets\/([^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    const asset = await get(`/assets/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(asset.headers["cache-control"]).toContain("immutable");
    expect((await get("/assets/missing.js")).status).toBe(404);
  });

  it("issues login links to the token only, and a wrong token is refused whatever cookie comes with it", async () => {
    const { cookie, csrf } = await signIn();
    const byCookie = await send("POST", "/web/login-codes", { cookie, "x-skein-csrf": csrf });
    expect(byCookie.status).toBe(401);
    const wrongToken = await get("/sessions", { cookie, authorization: "Bearer wrong" });
    expect(wrongToken.status).toBe(401);
    const tokenSession = await get("/web/session", { authorization: `Bearer ${app.token}` });
    expect(tokenSession.json()).toEqual({
      auth: "token",
      csrf_token: null,
      expires_at: null,
      name: "bootstrap",
      role: "admin",
    });
  });

  it("keeps a login across a SIGKILL and restart, and ends it at logout", async () => {
    const { cookie, csrf } = await signIn();
    await app.restart({ crash: true });
    expect((await get("/sessions", { cookie })).status).toBe(200);

    expect((await send("POST", "/web/logout", { cookie })).status).toBe(403);
    const out = await send("POST", "/web/logout", { cookie, "x-skein-csrf": csrf });
    expect(out.status).toBe(204);
    expect(String(out.headers["set-cookie"])).toContain("Max-Age=0");
    expect((await get("/sessions", { cookie })).status).toBe(401);
  });
});
