/**
 * Test support for the SSE parts: a real node:http server over 127.0.0.1 whose handler serves
 * a session stream, and a small SSE client that parses frames out of the response body.
 */
import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";

/** An event inside a batch as the client sees it. */
export interface WireEvent {
  type: string;
  sequence?: number;
  data: { [key: string]: unknown };
}

/** The JSON of one `data:` line. */
export interface WireBatch {
  generation: string;
  cursor: number;
  events: WireEvent[];
  snapshot?: unknown;
}

/** One parsed SSE block: a frame (id + data) or a comment. */
export interface WireFrame {
  id: string | null;
  batch: WireBatch | null;
  comment: string | null;
}

/** A listening server whose handler decides what each request gets. */
export interface TestServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Starts a node:http server on 127.0.0.1 with the given handler. */
export async function startServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestServer> {
  const server: Server = createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** A reading SSE client that keeps every frame it received. */
export class SseTestClient {
  readonly frames: WireFrame[] = [];
  /** UTF-8 bytes of each frame as received (with the blank line that ends it), by index. */
  readonly frameBytes: number[] = [];
  ended = false;
  private buffer = "";
  private readonly waiters = new Set<() => void>();

  private constructor(
    readonly response: IncomingMessage,
    private readonly req: ReturnType<typeof request>,
  ) {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      this.buffer += chunk;
      this.parse();
      this.notify();
    });
    const finish = () => {
      this.ended = true;
      this.notify();
    };
    response.on("end", finish);
    response.on("close", finish);
    response.on("error", finish);
  }

  /** Opens a stream request and resolves once the response headers arrived. */
  static async connect(
    port: number,
    path = "/stream",
    headers: Record<string, string> = {},
  ): Promise<SseTestClient> {
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      headers: { accept: "text/event-stream", ...headers },
    });
    req.on("error", () => {});
    req.end();
    const [response] = (await once(req, "response")) as [IncomingMessage];
    return new SseTestClient(response, req);
  }

  /** The batches received so far, in order. */
  get batches(): WireBatch[] {
    return this.frames.flatMap((frame) => (frame.batch === null ? [] : [frame.batch]));
  }

  /** Every sequenced event received so far, in order (resets have no sequence and are left out). */
  get events(): WireEvent[] {
    return this.batches.flatMap((batch) => batch.events.filter((event) => event.sequence !== undefined));
  }

  /** The comments received so far. */
  get comments(): string[] {
    return this.frames.flatMap((frame) => (frame.comment === null ? [] : [frame.comment]));
  }

  /** Resolves when `predicate` holds; rejects if the stream ends first or after `timeoutMs`. */
  async waitFor(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
    if (predicate()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}`));
      }, timeoutMs);
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve();
        } else if (this.ended) {
          clearTimeout(timer);
          this.waiters.delete(check);
          reject(new Error(`stream ended while waiting for ${what}`));
        }
      };
      this.waiters.add(check);
    });
  }

  /** Resolves when the response is over. */
  async waitForEnd(timeoutMs = 5_000): Promise<void> {
    if (this.ended) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("timed out waiting for the stream to end")), timeoutMs);
      const check = () => {
        if (!this.ended) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  /** Closes the connection from the client side. */
  close(): void {
    this.req.destroy();
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf("\n\n");
      if (end === -1) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const frame: WireFrame = { id: null, batch: null, comment: null };
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) frame.comment = line.slice(1).trim();
        else if (line.startsWith("id: ")) frame.id = line.slice(4);
        else if (line.startsWith("data: ")) frame.batch = JSON.parse(line.slice(6)) as WireBatch;
        else throw new Error(`unexpected SSE line: ${line.slice(0, 80)}`);
      }
      this.frames.push(frame);
      this.frameBytes.push(Buffer.byteLength(block, "utf8") + 2);
    }
  }
}

/** A client that sends a stream request and never reads the response. */
export async function connectNonReadingClient(port: number, path = "/stream"): Promise<Socket> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await once(socket, "connect");
  socket.pause();
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n`);
  return socket;
}
