/**
 * The daemon's webhooks wired to a real outbox (both backends) and a real webhook over loopback:
 * what a commit queued is delivered even when no durable commit said so, as after a commit whose
 * outcome was unknown but that landed.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";
import { daemonNotifications } from "../../../src/daemon/notify/daemon-notifications.js";
import type { NotificationTarget } from "../../../src/home/notification-config.js";
import { storageBackends } from "../storage/storage-backends.js";

const backends = storageBackends("skein_notify");
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/** A webhook on loopback: the event ids of the bodies it received. */
async function webhook(): Promise<{ url: string; received: string[] }> {
  const received: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    request.on("end", () => {
      received.push((JSON.parse(body) as { id: string }).id);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

describe.each(backends)("the daemon's webhooks ($name)", (backend) => {
  it("deliver what a commit queued within seconds when no durable commit says so, not after the longest wait", async () => {
    const storage = await backend.open();
    const hook = await webhook();
    const target: NotificationTarget = {
      url: hook.url,
      events: ["turn_completed"],
      secret: "s",
      allowPrivate: true,
    };
    const notifications = daemonNotifications(storage, () => [target], {}, quiet, {
      taskTool: "task",
      longestWaitMs: 60_000,
    });
    notifications.start();
    onTestFinished(() => notifications.stop());
    const endTurn = { id: "turn_1", state: "completed" as const, endedAt: Date.now(), error: null };
    const rows = notifications.planner("s1", [], { endTurn }, Date.now(), () => null);
    expect(rows).toHaveLength(1);
    // The commit landed, but its outcome was unknown to the writer: no `committed` follows.
    await storage.writeRows("s1", { notifications: rows });
    const deadline = Date.now() + 8_000;
    while (hook.received.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(hook.received).toEqual([rows[0]!.id]);
  });
});
