/**
 * Devices against the real daemon over loopback and the real CLI: `skein web --device` prints a
 * pairing link and a QR code that reads back as that link; the link signs one browser in once
 * (a second use answers a page that says so) with the device's role; `skein devices` lists it as
 * paired and `skein devices revoke` (or signing out in its browser) ends its cookie on the very
 * next request; a bad pairing is a clear error that stores nothing.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { decodeTerminalQr } from "../support/terminal-qr.js";
import { rawRequest, skeinBin } from "./support/daemon-harness.js";
import { useFakeProvider } from "./support/fixture.js";

const run = promisify(execFile);

describe("devices", () => {
  const fake = useFakeProvider();

  it("pairs a browser once through the printed link or its QR code, revokes it at once, and refuses bad pairings", async () => {
    const app = await fake.daemon();
    const env = { ...process.env, SKEIN_HOME: app.home, SKEIN_NO_AUTOSTART: "1" };
    const skein = (...args: string[]) => run(process.execPath, [skeinBin, ...args], { env });
    const printed = await skein("web", "--device", "phone");
    const [link, blank, ...qr] = printed.stdout.trimEnd().split("\n");
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${app.port}/pair\\?code=[A-Za-z0-9_-]{43}$`));
    expect(blank).toBe("");
    expect(decodeTerminalQr(qr)).toBe(link);
    expect(printed.stderr).toContain("role approver");
    expect(printed.stderr).toContain("skein devices revoke phone");
    expect((await skein("devices")).stdout).toMatch(
      /^phone {2}approver {2}every session {2}created .* waiting for pairing until /,
    );

    const path = new URL(link!).pathname + new URL(link!).search;
    // Opening the link (or a chat's link previewer fetching it) spends nothing: a page whose
    // button posts the code, as a browser posts a form without fields.
    const page = await rawRequest(app.port, { method: "GET", path, headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${path}">`);
    expect(String(page.headers["set-cookie"] ?? "")).toBe("");
    expect((await skein("devices")).stdout).toContain("waiting for pairing until");
    const post = (headers: Record<string, string> = {}, body = "") =>
      rawRequest(app.port, {
        method: "POST",
        path,
        headers: {
          accept: "text/html",
          "content-type": "application/x-www-form-urlencoded",
          "content-length": String(body.length),
          ...headers,
        },
        body,
      });
    expect((await post({}, "code=x")).json()).toMatchObject({ code: "invalid_request" });
    const elsewhere = await rawRequest(app.port, {
      method: "POST",
      path: "/devices",
      headers: { authorization: `Bearer ${app.token}`, "content-type": "application/x-www-form-urlencoded" },
      body: "name=x",
    });
    expect(elsewhere.json()).toMatchObject({ code: "unsupported_media_type" });
    const foreign = await post({ origin: "https://attacker.example" });
    expect(foreign.status).toBe(403);
    const paired = await post();
    expect(paired.status).toBe(303);
    const cookie = String(paired.headers["set-cookie"]).split(";")[0]!;
    expect(cookie).toMatch(new RegExp(`^skein_session_${app.port}=`));
    const again = await post();
    expect(again.status).toBe(401);
    expect(again.headers["content-type"]).toContain("text/html");
    expect(again.text).toContain("This pairing link does not work");
    expect(String(again.headers["set-cookie"] ?? "")).toBe("");

    const asPhone = (route: string) =>
      rawRequest(app.port, { method: "GET", path: route, headers: { cookie } });
    expect((await asPhone("/sessions")).status).toBe(200);
    expect((await asPhone("/devices")).json()).toMatchObject({ code: "role_forbidden" });
    expect((await asPhone("/web/session")).json()).toMatchObject({
      auth: "cookie",
      name: "phone",
      role: "approver",
    });
    // The cookie is a browser's credential, never a bearer token.
    const bearer = await rawRequest(app.port, {
      method: "GET",
      path: "/sessions",
      headers: { authorization: `Bearer ${cookie.slice(cookie.indexOf("=") + 1)}` },
    });
    expect(bearer.status).toBe(401);
    expect((await skein("devices")).stdout).toMatch(
      /^phone {2}approver {2}every session {2}created .* paired .* last seen /,
    );

    expect((await skein("devices", "revoke", "phone")).stdout).toBe("revoked device phone\n");
    const refused = await asPhone("/sessions");
    expect(refused.status).toBe(401);
    expect(refused.json()).toMatchObject({ code: "authentication_required" });
    expect((await skein("devices")).stdout).toBe("no devices (pair one with skein web --device NAME)\n");

    // Signing out in a device's browser unpairs it: its cookie was its only credential.
    const pad = await app.api("/devices", { method: "POST", body: { name: "pad", role: "viewer" } });
    const padLink = new URL(pad.json<{ pairing_url: string }>().pairing_url);
    const padCookie = String(
      (await rawRequest(app.port, { method: "POST", path: padLink.pathname + padLink.search, headers: {} }))
        .headers["set-cookie"],
    ).split(";")[0]!;
    const session = await rawRequest(app.port, {
      method: "GET",
      path: "/web/session",
      headers: { cookie: padCookie },
    });
    const signedOut = await rawRequest(app.port, {
      method: "POST",
      path: "/web/logout",
      headers: { cookie: padCookie, "x-skein-csrf": session.json<{ csrf_token: string }>().csrf_token },
    });
    expect(signedOut.status).toBe(204);
    expect((await app.api("/devices")).json()).toEqual({ devices: [] });
    const unknown = await skein("devices", "revoke", "phone").catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown).toMatchObject({ code: expect.any(Number) });
    expect((unknown as { stderr: string }).stderr).toContain("there is no device named phone");

    // Bad pairings: a clear error, and nothing stored.
    const failed = (...args: string[]) =>
      run(process.execPath, [skeinBin, ...args], { env }).catch(
        (error: { code: number; stderr: string }) => error,
      );
    for (const body of [{ name: "bad name" }, { name: "ok", role: "owner" }, { name: "bootstrap" }, {}]) {
      const answer = await app.api("/devices", { method: "POST", body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json()).toMatchObject({ code: "invalid_request" });
    }
    expect(await failed("web", "--device", "x", "--role", "owner")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--role must be one of viewer, approver, driver, admin"),
    });
    expect(await failed("web", "--role", "viewer")).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--role and --session go with --device NAME"),
    });
    expect((await app.api("/devices")).json()).toEqual({ devices: [] });
  });

  it("pairs a browser that is signed in already: the button's post needs no CSRF token for the cookie it holds", async () => {
    const app = await fake.daemon();
    const formPost = (path: string, headers: Record<string, string>) =>
      rawRequest(app.port, {
        method: "POST",
        path,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": "0", ...headers },
      });
    const login = new URL(
      (await app.api("/web/login-codes", { method: "POST" })).json<{ url: string }>().url,
    );
    const signedIn = await formPost(login.pathname + login.search, {});
    const cookie = String(signedIn.headers["set-cookie"]).split(";")[0]!;
    const pad = await app.api("/devices", { method: "POST", body: { name: "pad", role: "viewer" } });
    const padLink = new URL(pad.json<{ pairing_url: string }>().pairing_url);
    const paired = await formPost(padLink.pathname + padLink.search, {
      cookie,
      origin: `http://127.0.0.1:${app.port}`,
    });
    expect(paired.status).toBe(303);
    const padCookie = String(paired.headers["set-cookie"]).split(";")[0]!;
    const session = await rawRequest(app.port, {
      method: "GET",
      path: "/web/session",
      headers: { cookie: padCookie },
    });
    expect(session.json()).toMatchObject({ name: "pad", role: "viewer" });
  });
});
