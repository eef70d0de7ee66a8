import { describe, expect, it } from "vitest";
import { AnnounceOrder } from "../../../src/daemon/session/announce-order.js";

describe("AnnounceOrder", () => {
  it("lets a started commit announce only after the immediates queued before its wait", async () => {
    const order = new AnnounceOrder();
    const seen: string[] = [];
    setImmediate(() => seen.push("request written"));
    await order.turn(true);
    seen.push("announced");
    expect(seen).toEqual(["request written", "announced"]);
  });

  it("makes a commit that became durable while a started one waits announce after it", async () => {
    const order = new AnnounceOrder();
    const seen: string[] = [];
    const started = order.turn(true).then(() => seen.push("turn start"));
    const plain = order.turn(false).then(() => seen.push("later commit"));
    await Promise.all([started, plain]);
    expect(seen).toEqual(["turn start", "later commit"]);
  });

  it("does not hold a commit back when no started commit waits", async () => {
    const order = new AnnounceOrder();
    await order.turn(true);
    const seen: string[] = [];
    setImmediate(() => seen.push("immediate"));
    await order.turn(false);
    seen.push("announced");
    expect(seen).toEqual(["announced"]);
  });
});
