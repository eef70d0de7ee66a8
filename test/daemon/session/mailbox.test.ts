import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Mailbox } from "../../../src/daemon/session/mailbox.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("a session's mailbox", () => {
  it("runs tasks one at a time in arrival order, a failed one not stopping the next", async () => {
    const mailbox = new Mailbox();
    const order: string[] = [];
    const first = mailbox.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      order.push("first");
      throw new Error("first failed");
    });
    const second = mailbox.run(() => {
      order.push("second");
      return 2;
    });
    await expect(first).rejects.toThrow("first failed");
    expect(await second).toBe(2);
    expect(order).toEqual(["first", "second"]);
  });

  it("does not keep its last task's result alive once the caller has dropped it", async () => {
    const mailbox = new Mailbox();
    let ref: WeakRef<object> | undefined;
    await (async () => {
      const result = await mailbox.run(() => ({ snapshot: "x".repeat(1_000_000) }));
      ref = new WeakRef(result);
    })();
    await mailbox.idle();
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(ref?.deref()).toBeUndefined();
  });
});
