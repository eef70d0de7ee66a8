/** An answer sent before a large body was read reaches a client that is still sending it. */
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { withTestApp } from "./test-app.js";

const t = withTestApp();

/** Upload `bytes` as one body the way a plain client does (write all, then read); the status or the error code. */
function upload(headers: Record<string, string>, bytes: number): Promise<number | string> {
  return new Promise((resolve) => {
    const outgoing = request(
      {
        host: "127.0.0.1",
        port: t.port,
        method: "PUT",
        path: "/things/a",
        headers: {
          host: `127.0.0.1:${t.port}`,
          "content-type": "application/json",
          "content-length": String(bytes),
          ...headers,
        },
      },
      (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      },
    );
    outgoing.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    outgoing.end(Buffer.alloc(bytes, 0x20));
  });
}

describe("an early refusal of a large upload", () => {
  it.each([
    ["without the token", {}, 401],
    ["over the route's size limit", { authorization: "Bearer test-token-0123456789abcdef" }, 413],
  ])("reaches the client %s while it is still sending", async (_name, headers, status) => {
    for (let round = 0; round < 5; round++) {
      expect(await upload(headers, 48 * 1024 * 1024)).toBe(status);
    }
  });
});
