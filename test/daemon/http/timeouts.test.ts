import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectProblem, rawRequest } from "./raw-http.js";
import { startTestApp, type TestApp, token, validHead } from "./test-app.js";

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ token, timeouts: { requestMs: 800, headersMs: 800, checkIntervalMs: 100 } });
});

afterAll(async () => {
  await t.close();
});

describe("connection timeouts", () => {
  it("answers 408 problem JSON to a request whose body never completes", async () => {
    const response = await rawRequest(
      t.port,
      ["POST /small HTTP/1.1", ...validHead(t.port), "Content-Type: application/json", "Content-Length: 20"],
      '{"text":',
      { timeoutMs: 8000 },
    );
    expectProblem(response, 408, "request_timeout");
    expect(response.closed).toBe(true);
  });

  it("answers 408 problem JSON to a request whose headers never complete", async () => {
    const response = await rawRequest(t.port, ["GET /server HTTP/1.1", `Host: 127.0.0.1:${t.port}`], "", {
      timeoutMs: 8000,
      unfinishedHead: true,
    });
    expectProblem(response, 408, "request_timeout");
  });

  it("keeps an event stream open long after the request timeout", async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: t.port });
      let text = "";
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(text));
      socket.on("connect", () => {
        socket.write(
          `GET /stream HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
        );
      });
      // Three request timeouts later the stream must still be flowing.
      setTimeout(() => {
        socket.destroy();
      }, 2400);
    });
    expect(received).toMatch(/^HTTP\/1\.1 200/);
    const events = received.match(/data: (\d+)/g) ?? [];
    expect(events.length).toBeGreaterThanOrEqual(15);
    expect(received).toContain("data: 15");
  });
});
