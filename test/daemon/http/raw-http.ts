/** Raw HTTP/1.1 over a TCP socket, for requests fetch will not send (bad framing, fake Host, ...). */
import { connect } from "node:net";

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
  options: { timeoutMs?: number; endAfterWrite?: boolean } = {},
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
        // Give a closing server a moment so `closed` is observed.
        if (ended) finish(null, true);
        else setTimeout(() => finish(null, socket.readableEnded || socket.destroyed), 50);
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
      socket.write(`${head.join("\r\n")}\r\n\r\n`);
      if (body.length > 0) socket.write(body);
      if (options.endAfterWrite === true) socket.end();
    });
  });
}
