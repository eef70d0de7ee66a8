/**
 * Client traffic for cluster fault tests: a few workers send requests about a set of sessions
 * to random nodes (inputs with idempotent ids, retried on any answer but 202 as a client would;
 * snapshots, history pages, receipts, the session list), each with a timeout, and record every
 * answer with its time, status, Retry-After and problem code. A test then checks what was
 * answered during a fault and that every acknowledged input was delivered.
 *
 * Boundary rule: test support; it talks to the daemons only over HTTP.
 */
import { request as httpRequest } from "node:http";
import { v7 as uuidv7 } from "uuid";
import type { DaemonHarness, Receipt } from "./daemon-harness.js";
import type { SeededRandom } from "./seeded-random.js";

/** What a request of the traffic asked for. */
export type TrafficKind = "input" | "snapshot" | "history" | "receipt" | "list";

/** One answer (status 0: no answer: refused, reset or timed out). */
export interface TrafficAnswer {
  /** When the request was sent (ms since the epoch). */
  sentAt: number;
  /** When its answer (or the failure) arrived. */
  at: number;
  node: number;
  kind: TrafficKind;
  status: number;
  retryAfter: string | null;
  code: string | null;
}

/** An input the traffic sent, until some node acknowledged it (202). */
export interface TrafficInput {
  id: string;
  session: string;
  text: string;
  acknowledged: boolean;
}

/** One HTTP exchange with a timeout; status 0 when there was no answer. */
export function exchange(
  node: DaemonHarness,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 5_000,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((done) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: node.port,
        method,
        path,
        timeout: timeoutMs,
        headers: {
          host: `127.0.0.1:${node.port}`,
          authorization: `Bearer ${node.token}`,
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          done({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", () => done({ status: 0, headers: {}, text: "" }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", () => done({ status: 0, headers: {}, text: "" }));
    req.end(payload);
  });
}

function problemCode(text: string): string | null {
  try {
    const body = JSON.parse(text) as { code?: unknown };
    return typeof body.code === "string" ? body.code : null;
  } catch {
    return null;
  }
}

export class ClusterTraffic {
  readonly answers: TrafficAnswer[] = [];
  readonly inputs: TrafficInput[] = [];
  readonly #nodes: () => readonly DaemonHarness[];
  readonly #usable: (index: number) => boolean;
  readonly #sessions: readonly string[];
  readonly #random: SeededRandom;
  #running = false;
  #workers: Promise<void>[] = [];

  /**
   * Traffic to `nodes()` about `sessions`; `usable(i)`: whether node i may be sent to now (one
   * that is being restarted has no port yet).
   */
  constructor(
    nodes: () => readonly DaemonHarness[],
    sessions: readonly string[],
    random: SeededRandom,
    usable: (index: number) => boolean = () => true,
  ) {
    this.#nodes = nodes;
    this.#sessions = sessions;
    this.#random = random;
    this.#usable = usable;
  }

  /** Start `workers` request loops, each pausing `pauseMs` between requests. */
  start(workers: number, pauseMs = 20): void {
    this.#running = true;
    for (let i = 0; i < workers; i++) this.#workers.push(this.#loop(pauseMs));
  }

  /** Stop sending; resolves when every request in flight has its answer. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
    this.#workers = [];
  }

  /**
   * Answers to the requests sent between `from` and `to` (ms since the epoch). By send time: a
   * request sent before a fault may be answered after it began, and rightly as before.
   */
  between(from: number, to: number): TrafficAnswer[] {
    return this.answers.filter((answer) => answer.sentAt >= from && answer.sentAt <= to);
  }

  /**
   * Send every input not acknowledged yet again (same id) until each is, then wait until no
   * acknowledged input is still pending; the inputs that never got there in `timeoutMs`.
   */
  async settle(timeoutMs: number): Promise<TrafficInput[]> {
    const deadline = Date.now() + timeoutMs;
    let left = this.inputs.filter((input) => !input.acknowledged);
    while (left.length > 0 && Date.now() < deadline) {
      for (const input of left) await this.#send(input);
      left = left.filter((input) => !input.acknowledged);
      if (left.length > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const undelivered: TrafficInput[] = [...left];
    for (const input of this.inputs.filter((sent) => sent.acknowledged)) {
      for (;;) {
        const receipt = await this.receipt(input);
        if (receipt !== null && receipt.delivery !== "pending") break;
        if (Date.now() > deadline) {
          undelivered.push(input);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return undelivered;
  }

  /** The input's receipt as some live node answers it, or null. */
  async receipt(input: TrafficInput): Promise<Receipt | null> {
    for (const [index, node] of this.#nodes().entries()) {
      if (!this.#usable(index)) continue;
      const answer = await exchange(node, "GET", `/sessions/${input.session}/inputs/${input.id}`);
      if (answer.status === 200) return JSON.parse(answer.text) as Receipt;
    }
    return null;
  }

  async #loop(pauseMs: number): Promise<void> {
    while (this.#running) {
      const kind = this.#random.pick([
        "input",
        "snapshot",
        "snapshot",
        "history",
        "receipt",
        "list",
      ] as const);
      if (kind === "input") {
        const session = this.#random.pick(this.#sessions);
        const input = { id: uuidv7(), session, text: `input ${this.inputs.length}`, acknowledged: false };
        this.inputs.push(input);
        await this.#send(input);
      } else {
        await this.#read(kind);
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }

  async #send(input: TrafficInput): Promise<void> {
    const answer = await this.#ask("input", "PUT", `/sessions/${input.session}/inputs/${input.id}`, {
      kind: "message",
      text: input.text,
    });
    if (answer === 202) input.acknowledged = true;
  }

  async #read(kind: Exclude<TrafficKind, "input">): Promise<void> {
    const session = this.#random.pick(this.#sessions);
    const acknowledged = this.inputs.filter((input) => input.acknowledged);
    switch (kind) {
      case "snapshot":
        await this.#ask(kind, "GET", `/sessions/${session}?tail=5`);
        return;
      case "history":
        await this.#ask(kind, "GET", `/sessions/${session}/history?limit=20`);
        return;
      case "receipt": {
        if (acknowledged.length === 0) return;
        const input = this.#random.pick(acknowledged);
        await this.#ask(kind, "GET", `/sessions/${input.session}/inputs/${input.id}`);
        return;
      }
      case "list":
        await this.#ask(kind, "GET", "/sessions");
        return;
      default: {
        const unknown: never = kind;
        throw new Error(`unknown request kind ${String(unknown)}`);
      }
    }
  }

  /** Send to a random usable node and record the answer; its status. */
  async #ask(kind: TrafficKind, method: string, path: string, body?: unknown): Promise<number> {
    const nodes = this.#nodes();
    const usable = nodes.map((_, index) => index).filter((index) => this.#usable(index));
    if (usable.length === 0) return 0;
    const index = this.#random.pick(usable);
    const sentAt = Date.now();
    const answer = await exchange(nodes[index]!, method, path, body);
    const retryAfter = answer.headers["retry-after"];
    this.answers.push({
      sentAt,
      at: Date.now(),
      node: index,
      kind,
      status: answer.status,
      retryAfter: typeof retryAfter === "string" ? retryAfter : null,
      code: answer.status >= 400 ? problemCode(answer.text) : null,
    });
    return answer.status;
  }
}

/** Answers counted by status (and problem code), e.g. `{"200": 31, "503 request_unavailable": 4}`. */
export function countByStatus(answers: readonly TrafficAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = answer.code === null ? String(answer.status) : `${answer.status} ${answer.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}
