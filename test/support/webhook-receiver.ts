/**
 * A real HTTP server on loopback that records the webhook deliveries it gets (headers and the
 * exact body), and can be taken down and brought back up on the same port.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST the receiver got. */
export interface ReceivedDelivery {
  eventId: string;
  signature: string;
  body: string;
  json: { id: string; event: string; session_id: string; data: Record<string, unknown>; created_at: string };
  at: number;
}

export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  /** Requests that reached the server at all (with a status other than 2xx too). */
  requests = 0;
  /** The status answered (204 unless a test asks otherwise); "hold": never answer. */
  status: number | "hold" = 204;
  #server: Server | null = null;
  #port = 0;

  /** A receiver listening on 127.0.0.1 (on `port`, or a free one). */
  static async start(port = 0): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.up(port);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  /** Listen again (on the same port once it had one). */
  async up(port = this.#port): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        this.requests += 1;
        const body = Buffer.concat(chunks).toString("utf8");
        if (this.status === "hold") return;
        if (this.status >= 200 && this.status < 300) {
          this.deliveries.push({
            eventId: String(request.headers["x-skein-event-id"]),
            signature: String(request.headers["x-skein-signature"]),
            body,
            json: JSON.parse(body) as ReceivedDelivery["json"],
            at: Date.now(),
          });
        }
        response.writeHead(this.status).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stop listening (connections refused until `up`). */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (server === null) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
