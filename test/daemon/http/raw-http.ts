/** Raw HTTP/1.1 over a TCP socket, for requests fetch will not send (bad framing, fake Host, ...). */
import { connect } from "node:net";
import { expect } from "vitest";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection after the response. */
  closed: boolean;
}

/** Send `head` (lines without the final blank line) plus optional body bytes; read one response. */
export function rawRequest(
  port: number,
  head: string[],
  body: string | Buffer = "",
  options: { timeoutMs?: number; endAfterWrite?: boolean; unfinishedHead?: boolean } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let buffer = Buffer.alloc(0);
    let parsed: { status: number; headers: Record<string, string>; bodyStart: number } | null = null;
    let done = false;
    const timer = setTimeout(
      () => finish(new Error(`no complete response within ${options.timeoutMs ?? 5000} ms`)),
      options.timeoutMs ?? 5000,
    );
    const finish = (error: Error | null, closed = false): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error !== null) {
        reject(error);
        return;
      }
      const info = parsed!;
      resolve({
        status: info.status,
        headers: info.headers,
        body: buffer.subarray(info.bodyStart).toString("utf8"),
        closed,
      });
    };
    const tryComplete = (ended: boolean): void => {
      if (parsed === null) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) {
          if (ended) finish(new Error(`connection closed before a response: ${buffer.toString("latin1")}`));
          return;
        }
        const lines = buffer.subarray(0, end).toString("latin1").split("\r\n");
        const status = Number(lines[0]!.split(" ")[1]);
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1)) {
          const colon = line.indexOf(":");
          headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
        }
        parsed = { status, headers, bodyStart: end + 4 };
      }
      const length = parsed.headers["content-length"];
      if (length !== undefined && buffer.length - parsed.bodyStart >= Number(length)) {
        buffer = buffer.subarray(0, parsed.bodyStart + Number(length));
        if (ended) finish(null, true);
        // A server that said it closes is waited for, however loaded the machine (its end event
        // finishes); any other gets a moment so a close it did not announce is still observed.
        else if (parsed.headers.connection?.toLowerCase() !== "close")
          setTimeout(() => finish(null, socket.readableEnded || socket.destroyed), 50);
      } else if (ended) {
        finish(null, true);
      }
    };
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      tryComplete(false);
    });
    socket.on("end", () => tryComplete(true));
    socket.on("close", () => tryComplete(true));
    socket.on("error", (error) => {
      // A server that answers and closes while we still write may reset the connection.
      if (parsed !== null) tryComplete(true);
      else finish(error);
    });
    socket.on("connect", () => {
      // An unfinished head lacks the blank line that ends it.
      socket.write(`${head.join("\r\n")}\r\n${options.unfinishedHead === true ? "" : "\r\n"}`);
      if (body.length > 0) socket.write(body);
      if (options.endAfterWrite === true) socket.end();
    });
  });
}

/** One response read off a connection that may carry several. */
export type ParsedResponse = Omit<RawResponse, "closed">;

/** Everything the server sent on one connection. */
export interface Conversation {
  /** Responses in order, interim ones (100 Continue) included. */
  responses: ParsedResponse[];
  /** The server closed the connection (else the client gave up after `idleMs` of silence). */
  closed: boolean;
}

/**
 * Write `chunks` on one connection, `gapMs` apart, then read until the server closes or stays
 * silent for `idleMs`; every response is parsed by its Content-Length.
 */
export function rawConversation(
  port: number,
  chunks: Array<string | Buffer>,
  options: { gapMs?: number; idleMs?: number } = {},
): Promise<Conversation> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = Buffer.alloc(0);
    let idle: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(idle);
      socket.destroy();
      resolve({ responses: parseResponses(received), closed });
    };
    const rearm = (): void => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(false), options.idleMs ?? 1000);
    };
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      rearm();
    });
    socket.on("close", () => finish(true));
    // A server that answers and closes while we still write may reset the connection.
    socket.on("error", () => finish(true));
    socket.on("connect", async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        await new Promise((wait) => setTimeout(wait, options.gapMs ?? 100));
      }
      rearm();
    });
  });
}

function parseResponses(bytes: Buffer): ParsedResponse[] {
  const responses: ParsedResponse[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const end = bytes.indexOf("\r\n\r\n", offset);
    if (end < 0) break;
    const lines = bytes.subarray(offset, end).toString("latin1").split("\r\n");
    const status = Number(lines[0]!.split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let position = end + 4;
    const parts: Buffer[] = [];
    if (status >= 200 && headers["transfer-encoding"] === "chunked") {
      // Node's own bare answers are chunked.
      for (;;) {
        const lineEnd = bytes.indexOf("\r\n", position);
        if (lineEnd < 0) break;
        const size = Number.parseInt(bytes.subarray(position, lineEnd).toString("latin1"), 16);
        parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
        position = lineEnd + 2 + size + 2;
        if (size === 0 || Number.isNaN(size)) break;
      }
    } else if (status >= 200) {
      const length = Number(headers["content-length"] ?? 0);
      parts.push(bytes.subarray(position, position + length));
      position += length;
    }
    responses.push({ status, headers, body: Buffer.concat(parts).toString("utf8") });
    offset = position;
  }
  return responses;
}

/** Assert a complete problem JSON answer. */
export function expectProblem(response: ParsedResponse, status: number, code: string): void {
  expect(response.status, response.body).toBe(status);
  expect(response.headers["content-type"]).toBe("application/problem+json");
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body).sort()).toEqual(["code", "detail", "status", "title", "type"]);
  expect(body).toMatchObject({ type: "about:blank", status, code });
  expect(typeof body.title).toBe("string");
  expect(body.detail).not.toBe("");
}
