import { describe, expect, it } from "vitest";
import { withInterrupt } from "../../src/cli/sigint-interrupt.js";

describe("waiting with Ctrl-C", () => {
  it("asks the work to stop on the first Ctrl-C and keeps waiting for it", async () => {
    let finish: (value: string) => void = () => {};
    const work = new Promise<string>((resolve) => {
      finish = resolve;
    });
    let asked = 0;
    const waiting = withInterrupt(() => {
      asked += 1;
      finish("stopped");
    }, work);
    process.emit("SIGINT", "SIGINT");
    expect(await waiting).toBe("stopped");
    expect(asked).toBe(1);
  });

  it("gives up on the second Ctrl-C", async () => {
    let asked = 0;
    const waiting = withInterrupt(
      () => {
        asked += 1;
      },
      new Promise<string>(() => {}),
    );
    process.emit("SIGINT", "SIGINT");
    process.emit("SIGINT", "SIGINT");
    expect(await waiting).toBe("forced");
    expect(asked).toBe(1);
  });

  it("stops listening once the work is done", async () => {
    const before = process.listenerCount("SIGINT");
    await withInterrupt(() => {}, Promise.resolve("done"));
    expect(process.listenerCount("SIGINT")).toBe(before);
  });
});
