/**
 * `npm run bench -- notifications`: what webhooks cost, each figure with a baseline from the
 * same run, through a real daemon, the fake provider and a real receiver on loopback.
 *
 * - Latency from an `approval_requested` entry committed (the payload's `created_at`, stamped at
 *   the commit) to the receiver having the whole POST, p50 and p99 over 50 approvals; baseline:
 *   the round trip of `GET /server` on the same daemon (the HTTP floor).
 * - The daemon's CPU per plain turn with a webhook on `turn_completed` (an outbox row written in
 *   the turn's end commit, claimed, posted, deleted), against the same turns in a daemon with no
 *   notifications configured.
 */

import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text, toolCalls } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { WebhookReceiver } from "../test/support/webhook-receiver.js";
import { cpuMs } from "./daemon-support.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";

const approvals = 50;
const turns = 150;
const secret = "bench-secret";

/** Run every notifications figure. */
export async function run(): Promise<void> {
  const provider = await FakeProvider.start();
  const receiver = await WebhookReceiver.start();
  try {
    const figures = [
      ...(await approvalLatency(provider, receiver)),
      ...(await cpuPerTurn(provider, receiver)),
    ];
    writeReport("notifications", figures);
  } finally {
    await receiver.down();
    await provider.close();
  }
}

function daemon(provider: FakeProvider, notifications: unknown[] | undefined): Promise<DaemonHarness> {
  return DaemonHarness.start({
    providers: {
      bench: { protocol: "chat_completions", baseUrl: provider.baseUrlWith("v1"), apiKey: "k", model: "m" },
    },
    config: {
      approvalPolicy: undefined,
      maxToolRounds: approvals + 10,
      ...(notifications === undefined ? {} : { notifications }),
    },
    env: { SKEIN_LOG_LEVEL: "warn" },
  });
}

async function until<T>(check: () => T | undefined): Promise<T> {
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function approvalLatency(provider: FakeProvider, receiver: WebhookReceiver): Promise<Figure[]> {
  const app = await daemon(provider, [
    { url: receiver.url, events: ["approval_requested"], secret, allowPrivate: true },
  ]);
  try {
    const sessionId = await app.createSession();
    const latencies: number[] = [];
    for (let index = 0; index < approvals; index++) {
      const callId = `call_${index}`;
      provider.queue(toolCalls([{ name: "run_command", args: { command: "true" }, id: callId }]), text("ok"));
      await app.prompt(sessionId, `run ${index}`);
      const delivery = await until(() =>
        receiver.deliveries.find(
          (seen) => seen.json.data.call_id === callId && seen.json.session_id === sessionId,
        ),
      );
      latencies.push(delivery.at - Date.parse(delivery.json.created_at));
      const answered = await app.api(`/sessions/${sessionId}/approvals/${callId}`, {
        method: "POST",
        body: { decision: "deny" },
      });
      if (answered.status !== 200) throw new Error(`answer ${callId}: ${answered.status}`);
      await app.idle(sessionId);
    }
    const floor: number[] = [];
    for (let index = 0; index < approvals; index++) {
      const started = performance.now();
      await app.api("/server");
      floor.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    floor.sort((a, b) => a - b);
    const note = `${approvals} approvals; from the commit's created_at (ms clock) to the receiver holding the POST; baseline: GET /server round trip`;
    return [
      figure("approval_to_webhook_p50", quantile(latencies, 0.5), "ms", quantile(floor, 0.5), note),
      figure("approval_to_webhook_p99", quantile(latencies, 0.99), "ms", quantile(floor, 0.99), note),
    ];
  } finally {
    await app.close();
  }
}

/** The daemon's CPU per plain turn (ms), over `turns` turns in one session. */
async function turnCpu(provider: FakeProvider, notifications: unknown[] | undefined): Promise<number> {
  const app = await daemon(provider, notifications);
  try {
    provider.script = () => text("ok");
    const sessionId = await app.createSession();
    for (let warm = 0; warm < 10; warm++) {
      await app.prompt(sessionId, "warm up");
      await app.idle(sessionId);
    }
    const before = cpuMs(app.pid);
    for (let index = 0; index < turns; index++) {
      await app.prompt(sessionId, `turn ${index}`);
      await app.idle(sessionId);
    }
    return (cpuMs(app.pid) - before) / turns;
  } finally {
    await app.close();
  }
}

async function cpuPerTurn(provider: FakeProvider, receiver: WebhookReceiver): Promise<Figure[]> {
  const without = await turnCpu(provider, undefined);
  const delivered = receiver.deliveries.length;
  const withHook = await turnCpu(provider, [
    { url: receiver.url, events: ["turn_completed"], secret, allowPrivate: true },
  ]);
  const posted = receiver.deliveries.length - delivered;
  return [
    figure(
      "cpu_per_turn_with_webhook_ms",
      withHook,
      "ms",
      without,
      `daemon utime+stime over ${turns} plain turns / ${turns}, a webhook on turn_completed (${posted} posts received); baseline: the same turns with no notifications configured`,
    ),
  ];
}
