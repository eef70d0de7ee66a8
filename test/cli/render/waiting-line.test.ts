import { PassThrough } from "node:stream";
import pc from "picocolors";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { OutputStream } from "../../../src/cli/render/terminal.js";
import { WaitingLine } from "../../../src/cli/render/waiting-line.js";

function output(tty: boolean): { stream: OutputStream; written: () => string } {
  const sink = new PassThrough();
  let written = "";
  sink.on("data", (chunk: Buffer) => {
    written += chunk.toString("utf8");
  });
  return {
    stream: { stream: sink, tty, paint: pc.createColors(false), columns: 120 },
    written: () => written,
  };
}

describe("the waiting line", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("shows the elapsed silence on a terminal, then says the provider may be stalled", async () => {
    vi.useFakeTimers();
    const { stream, written } = output(true);
    const line = new WaitingLine(stream, {
      delayMs: 1_000,
      noticeEveryMs: 5_000,
      tickMs: 100,
      now: Date.now,
    });
    line.start();
    await vi.advanceTimersByTimeAsync(500);
    expect(written()).toBe("");
    await vi.advanceTimersByTimeAsync(1_600);
    expect(written()).toMatch(/waiting for the model… 2 s$/);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(written()).toMatch(
      /waiting for the model… 6 s — nothing received yet; the provider may be stalled/,
    );
    line.stop();
    expect(written().endsWith("\r\x1b[2K")).toBe(true);
  });

  it("steps aside for output and never draws after a line left open", async () => {
    vi.useFakeTimers();
    const { stream, written } = output(true);
    const line = new WaitingLine(stream, { delayMs: 1_000, tickMs: 100, now: Date.now });
    line.start();
    await vi.advanceTimersByTimeAsync(1_500);
    expect(written()).toContain("waiting for the model");
    line.before();
    expect(written().endsWith("\r\x1b[2K")).toBe(true);
    line.after(true);
    const before = written();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(written()).toBe(before);
    line.after(false);
    line.activity("running run_command");
    await vi.advanceTimersByTimeAsync(1_500);
    expect(written()).toMatch(/running run_command… 1 s$/);
    line.stop();
  });

  it("prints one plain line per interval of silence when not on a terminal", async () => {
    vi.useFakeTimers();
    const { stream, written } = output(false);
    const line = new WaitingLine(stream, { noticeEveryMs: 10_000, now: Date.now });
    line.start();
    await vi.advanceTimersByTimeAsync(9_000);
    expect(written()).toBe("");
    await vi.advanceTimersByTimeAsync(12_000);
    expect(written()).toBe(
      "skein: waiting for the model: nothing received for 10 s (Ctrl-C interrupts)\n" +
        "skein: waiting for the model: nothing received for 20 s (Ctrl-C interrupts)\n",
    );
    line.stop();
  });
});
