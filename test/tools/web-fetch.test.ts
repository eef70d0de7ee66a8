/**
 * web_fetch against a real HTTP server on loopback: reached only when the operator allows the
 * range, HTML converted to Markdown, redirects followed and each hop judged again, bodies and
 * calls bounded, and refused outright when the daemon gives tools no network.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressAllowList } from "../../src/tools/fetch-address.js";
import { type FetchNetwork, MAX_FETCH_BYTES, webFetchTool } from "../../src/tools/web-fetch.js";
import { callTool, expectToolError } from "./tool-harness.js";

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    switch (request.url) {
      case "/page":
        response.setHeader("content-type", "text/html; charset=utf-8");
        response.end(
          "<html><head><title>t</title><script>alert(1)</script></head><body><h1>Hello</h1><p>a <b>bold</b> word</p></body></html>",
        );
        return;
      case "/gzip":
        response.setHeader("content-type", "text/plain");
        response.setHeader("content-encoding", "gzip");
        response.end(gzipSync("zipped text"));
        return;
      case "/hop":
        response.statusCode = 302;
        response.setHeader("location", "/page");
        response.end();
        return;
      case "/to-other-loopback":
        response.statusCode = 301;
        response.setHeader("location", `http://127.0.0.2:${(server.address() as AddressInfo).port}/page`);
        response.end();
        return;
      case "/big":
        response.setHeader("content-type", "text/plain");
        response.end("x".repeat(MAX_FETCH_BYTES + 1000));
        return;
      case "/image":
        response.setHeader("content-type", "image/png");
        response.end(Buffer.alloc(10));
        return;
      default:
        response.statusCode = 404;
        response.end("not here");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const available: FetchNetwork = { kind: "available" };
const fetchWith = (allowed: string[], network: FetchNetwork = available) =>
  webFetchTool({ network, allowList: () => new AddressAllowList(allowed) });

describe("web_fetch", () => {
  it("refuses loopback and private addresses by default, before connecting", async () => {
    await expectToolError(
      callTool(fetchWith([]), { url: `${base}/page` }),
      "execution_failed",
      /127\.0\.0\.1, a loopback address/,
    );
    await expectToolError(
      callTool(fetchWith([]), { url: "http://10.0.0.1/" }),
      "execution_failed",
      /a private address/,
    );
    await expectToolError(
      callTool(fetchWith([]), { url: "http://[::1]/" }),
      "execution_failed",
      /a loopback address/,
    );
    await expectToolError(
      callTool(fetchWith([]), { url: "http://169.254.169.254/latest" }),
      "execution_failed",
      /link-local/,
    );
  });

  it("fetches an allowed address and converts HTML to Markdown without scripts", async () => {
    const text = String(await callTool(fetchWith(["127.0.0.1/32"]), { url: `${base}/page` }));
    expect(text).toBe(`${base}/page (200, text/html)\n\n# Hello\n\na **bold** word`);
  });

  it("decompresses, follows redirects, and judges every hop again", async () => {
    const tool = fetchWith(["127.0.0.1/32"]);
    expect(await callTool(tool, { url: `${base}/gzip` })).toBe(
      `${base}/gzip (200, text/plain)\n\nzipped text`,
    );
    expect(String(await callTool(tool, { url: `${base}/hop` }))).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/page \(200, text\/html\)\n\n# Hello/,
    );
    await expectToolError(
      callTool(tool, { url: `${base}/to-other-loopback` }),
      "execution_failed",
      /127\.0\.0\.2, a loopback address/,
    );
  });

  it("bounds the body, shows a 404's text and does not show binary content", async () => {
    const tool = fetchWith(["127.0.0.1/32"]);
    const big = String(await callTool(tool, { url: `${base}/big` }));
    expect(big).toMatch(/output truncated/);
    expect(big).toMatch(/\[the body was cut after 2097152 bytes\]$/);
    expect(await callTool(tool, { url: `${base}/missing` })).toBe(
      `${base}/missing (404, no content type)\n\nnot here`,
    );
    expect(await callTool(tool, { url: `${base}/image` })).toBe(
      `${base}/image (200, image/png)\n\n[10 bytes of image/png, not text: not shown]`,
    );
  });

  it("refuses other schemes and bad URLs, and everything when the daemon gives tools no network", async () => {
    await expectToolError(
      callTool(fetchWith([]), { url: "file:///etc/passwd" }),
      "invalid_argument",
      /only http and https/,
    );
    await expectToolError(callTool(fetchWith([]), { url: "not a url" }), "invalid_argument", /not a URL/);
    const offline = fetchWith(["127.0.0.1/32"], { kind: "none", reason: "set SKEIN_SANDBOX_NETWORK=1" });
    await expectToolError(
      callTool(offline, { url: `${base}/page` }),
      "execution_failed",
      /gives its tools no network/,
    );
  });
});
