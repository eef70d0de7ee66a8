/**
 * Webhooks end to end, against the real daemon process and a real receiver on loopback: every
 * event kind arrives signed; an interrupted turn is a `turn_completed` saying so; a receiver down for a while gets the event once it is back, under
 * the same id; a daemon SIGKILLed mid-delivery delivers after its restart, same id; a private
 * address without `allowPrivate` is never contacted and the log says why; a bad config is not used.
 */
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { deliver, deltas, httpError, text, toolCalls } from "../support/fake-provider/reply.js";
import { WebhookReceiver } from "../support/webhook-receiver.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";

const secret = "s3cret-for-tests";
const allEvents = ["approval_requested", "question", "turn_completed", "turn_failed"];

function validSignature(body: string, signature: string): boolean {
  return signature === `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

describe("notifications", () => {
  const fake = useFakeProvider();
  const receivers: WebhookReceiver[] = [];
  afterEach(async () => {
    for (const receiver of receivers.splice(0)) await receiver.down();
  });

  async function receiver(): Promise<WebhookReceiver> {
    const started = await WebhookReceiver.start();
    receivers.push(started);
    return started;
  }

  function daemon(url: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
    return fake.daemon({
      config: {
        approvalPolicy: undefined,
        notifications: [{ url, events: allEvents, secret, allowPrivate: true, ...extra }],
      },
      env: {
        SKEIN_NOTIFY_RETRY_MS: "200",
        SKEIN_NOTIFY_RETRY_MAX_MS: "1000",
        SKEIN_NOTIFY_TIMEOUT_MS: "1000",
        ...env,
      },
    });
  }

  async function waitingCall(app: DaemonHarness, sessionId: string): Promise<void> {
    await eventually("a call waits for an answer", async () => {
      const snapshot = (await app.api(`/sessions/${sessionId}?tail=0`)).json<{
        pending_approvals: unknown[];
      }>();
      return snapshot.pending_approvals.length > 0 ? true : undefined;
    });
  }

  /** Delivered rows are deleted once the receiver's answer is back (just after it records them). */
  function outboxEmpty(app: DaemonHarness): Promise<true> {
    return eventually("the outbox emptied", async () => {
      const [row] = await app.sql<{ n: number }>("SELECT count(*) AS n FROM notification_outbox");
      return Number(row!.n) === 0 ? true : undefined;
    });
  }

  function answer(app: DaemonHarness, sessionId: string, callId: string, body: Record<string, unknown>) {
    return app.api(`/sessions/${sessionId}/approvals/${callId}`, { method: "POST", body });
  }

  it("delivers every event kind, signed with the secret over the exact body", async () => {
    const hook = await receiver();
    const app = await daemon(hook.url);
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "true" }, id: "call_run" }]),
      text("It ran."),
      toolCalls([{ name: "ask_user", args: { question: "Which colour?" }, id: "call_ask" }]),
      text("Blue."),
      httpError(400, { message: "bad request" }),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "run it");
    await waitingCall(app, sessionId);
    expect((await answer(app, sessionId, "call_run", { decision: "allow" })).status).toBe(200);
    await app.idle(sessionId);
    await app.prompt(sessionId, "ask me");
    await waitingCall(app, sessionId);
    expect((await answer(app, sessionId, "call_ask", { decision: "allow", message: "blue" })).status).toBe(
      200,
    );
    await app.idle(sessionId);
    await app.prompt(sessionId, "fail");
    await app.idle(sessionId);

    const got = await eventually("five deliveries", () =>
      hook.deliveries.length >= 5 ? hook.deliveries : undefined,
    );
    expect(got.map((delivery) => delivery.json.event)).toEqual([
      "approval_requested",
      "turn_completed",
      "question",
      "turn_completed",
      "turn_failed",
    ]);
    for (const delivery of got) {
      expect(validSignature(delivery.body, delivery.signature)).toBe(true);
      expect(delivery.eventId).toBe(delivery.json.id);
      expect(delivery.json.session_id).toBe(sessionId);
      expect(Number.isNaN(Date.parse(delivery.json.created_at))).toBe(false);
    }
    expect(got[0]!.json.data).toMatchObject({ call_id: "call_run", tool: "run_command" });
    expect(got[2]!.json.data).toMatchObject({ call_id: "call_ask", tool: "ask_user" });
    expect(JSON.parse(String(got[2]!.json.data.arguments))).toEqual({ question: "Which colour?" });
    expect(got[4]!.json.data).toMatchObject({ state: "failed" });
    expect(validSignature(`${got[0]!.body} `, got[0]!.signature)).toBe(false);
    await outboxEmpty(app);
  });

  it("delivers task_completed when a subagent's task ends in the parent's log", async () => {
    const hook = await receiver();
    const app = await fake.daemon({
      config: {
        agents: { alpha: { description: "Looks things up.", prompt: "MARK-ALPHA: you look things up." } },
        notifications: [
          { url: hook.url, events: ["task_completed", "turn_completed"], secret, allowPrivate: true },
        ],
      },
    });
    fake.provider.script = (request) => {
      if (request.rawBody.includes("MARK-ALPHA")) return text("ANSWER-ALPHA 42");
      if (request.rawBody.includes("ANSWER-ALPHA")) return text("parent done");
      return toolCalls([{ name: "task", args: { agent: "alpha", prompt: "find A" }, id: "call_task" }]);
    };
    const parentId = await app.createSession();
    await app.prompt(parentId, "delegate");
    await app.idle(parentId);
    const got = await eventually("the task's and both turns' deliveries", () => {
      const task = hook.deliveries.find((delivery) => delivery.json.event === "task_completed");
      const parentTurn = hook.deliveries.find(
        (delivery) => delivery.json.event === "turn_completed" && delivery.json.session_id === parentId,
      );
      return task !== undefined && parentTurn !== undefined ? { task, parentTurn } : undefined;
    });
    expect(got.task.json).toMatchObject({
      session_id: parentId,
      data: { call_id: "call_task", is_error: false },
    });
    expect(validSignature(got.task.body, got.task.signature)).toBe(true);
    expect(hook.deliveries.filter((delivery) => delivery.json.event === "task_completed")).toHaveLength(1);
  });

  it("delivers turn_completed with state interrupted for a turn interrupted mid-answer", async () => {
    const hook = await receiver();
    const app = await daemon(hook.url, { events: ["turn_completed", "turn_failed"] });
    fake.provider.queue(deliver(deltas(400, "word "), { delayMs: 10 }));
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "talk for a while");
    const running = await eventually("a streaming turn", async () => {
      if (fake.provider.requests.length === 0) return undefined;
      const snapshot = (await app.api(`/sessions/${sessionId}?tail=0`)).json<{
        status: { run_id: string | null };
        input_order: number;
      }>();
      return snapshot.status.run_id === null ? undefined : snapshot;
    });
    await app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: running.status.run_id, through_input_order: running.input_order },
    });
    await app.idle(sessionId);
    const [delivery] = await eventually("the delivery", () =>
      hook.deliveries.length > 0 ? hook.deliveries : undefined,
    );
    expect(delivery!.json.event).toBe("turn_completed");
    expect(delivery!.json.data).toMatchObject({ turn_id: running.status.run_id, state: "interrupted" });
    await outboxEmpty(app);
    expect(hook.deliveries).toHaveLength(1);
  });

  it("delivers to a receiver that was down once it is up again, under the same id", async () => {
    const hook = await receiver();
    const app = await daemon(hook.url, { events: ["turn_completed"] });
    hook.status = 503;
    const sessionId = await app.createSession();
    fake.provider.queue(text("done"));
    await app.prompt(sessionId, "hello");
    await app.idle(sessionId);
    await eventually("two refused attempts", () => (hook.requests >= 2 ? true : undefined));
    await hook.down();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    hook.status = 204;
    await hook.up();
    const [delivery] = await eventually("the delivery", () =>
      hook.deliveries.length > 0 ? hook.deliveries : undefined,
    );
    expect(delivery!.json.event).toBe("turn_completed");
    expect(validSignature(delivery!.body, delivery!.signature)).toBe(true);
    expect(app.readLog()).toMatch(/notification not delivered, will retry/);
    await outboxEmpty(app);
  });

  it("delivers after a SIGKILL mid-delivery, under the same id", async () => {
    const hook = await receiver();
    const app = await daemon(hook.url, { events: ["approval_requested"] });
    // The receiver takes the request but never answers: the daemon dies with the delivery in flight.
    hook.status = "hold";
    const sessionId = await app.createSession();
    fake.provider.queue(toolCalls([{ name: "run_command", args: { command: "true" }, id: "call_k" }]));
    await app.prompt(sessionId, "run it");
    await eventually("a delivery attempt", () => (hook.requests >= 1 ? true : undefined));
    const [queued] = await app.sql<{ id: string }>("SELECT id FROM notification_outbox");
    await app.kill();
    await hook.down();
    hook.status = 204;
    await hook.up();
    await app.restart({ crash: false });
    const [delivery] = await eventually("the delivery after the restart", () =>
      hook.deliveries.length > 0 ? hook.deliveries : undefined,
    );
    expect(delivery!.eventId).toBe(queued!.id);
    expect(delivery!.json.data).toMatchObject({ call_id: "call_k" });
    expect(validSignature(delivery!.body, delivery!.signature)).toBe(true);
  });

  it("never contacts a private address without allowPrivate, and logs why", async () => {
    const hook = await receiver();
    // One by its literal address (judged before connecting), one by name (judged as resolved).
    const named = hook.url.replace("127.0.0.1", "localhost");
    const app = await fake.daemon({
      config: {
        notifications: [
          { url: hook.url, events: ["turn_completed"], secret },
          { url: named, events: ["turn_completed"], secret },
        ],
      },
    });
    const sessionId = await app.createSession();
    fake.provider.queue(text("done"));
    await app.prompt(sessionId, "hello");
    await app.idle(sessionId);
    const rows = await eventually("both deliveries given up", async () => {
      const found = await app.sql<{ target_url: string; last_error: string; gave_up_at: number | null }>(
        "SELECT target_url, last_error, gave_up_at FROM notification_outbox WHERE gave_up_at IS NOT NULL ORDER BY target_url",
      );
      return found.length === 2 ? found : undefined;
    });
    expect(rows.map((row) => row.target_url).sort()).toEqual([hook.url, named].sort());
    for (const row of rows) expect(row.last_error).toMatch(/is a loopback address .*allowPrivate/);
    expect(app.readLog()).toMatch(/notification given up/);
    expect(app.readLog()).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(hook.requests).toBe(0);
  });

  it("refuses a bad notifications config: GET /config says why, and nothing is sent", async () => {
    const hook = await receiver();
    const app = await fake.daemon({
      config: { notifications: [{ url: hook.url, events: ["turn_exploded"], secret, allowPrivate: true }] },
    });
    const config = (await app.api("/config")).json<{ error: string | null }>();
    expect(config.error).toMatch(/"notifications\[0\]\.events" has unknown event "turn_exploded"/);
    const sessionId = await app.createSession();
    fake.provider.queue(text("done"));
    await app.prompt(sessionId, "hello");
    await app.idle(sessionId);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hook.requests).toBe(0);
    expect(await app.sql("SELECT * FROM notification_outbox")).toEqual([]);
  });
});
