/** The retry of what a storage failure held back: growing delays, one pending, reset on success. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StorageRetry, storageRetryDelaysMs } from "../../../src/daemon/turn/storage-retry.js";

describe("StorageRetry", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs an attempt after the first delay and is pending until then", () => {
    const retry = new StorageRetry(() => false);
    const attempt = vi.fn();
    retry.schedule(attempt);
    expect(retry.pending).toBe(true);
    vi.advanceTimersByTime(storageRetryDelaysMs[0]! - 1);
    expect(attempt).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(attempt).toHaveBeenCalledOnce();
    expect(retry.pending).toBe(false);
  });

  it("waits longer after each failure in a row, up to the last delay, and starts over after a success", () => {
    const retry = new StorageRetry(() => false);
    const waited: number[] = [];
    const measure = (): void => {
      const from = Date.now();
      retry.schedule(() => waited.push(Date.now() - from));
      vi.runAllTimers();
    };
    for (let i = 0; i <= storageRetryDelaysMs.length; i++) measure();
    expect(waited).toEqual([...storageRetryDelaysMs, storageRetryDelaysMs.at(-1)]);
    retry.succeeded();
    measure();
    expect(waited.at(-1)).toBe(storageRetryDelaysMs[0]);
  });

  it("replaces a retry that waits with the new one", () => {
    const retry = new StorageRetry(() => false);
    const first = vi.fn();
    const second = vi.fn();
    retry.schedule(first);
    retry.schedule(second);
    vi.runAllTimers();
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledOnce();
  });

  it("does not run an attempt once its owner halted or disposed of it", () => {
    let halted = false;
    const retry = new StorageRetry(() => halted);
    const attempt = vi.fn();
    retry.schedule(attempt);
    halted = true;
    vi.runAllTimers();
    retry.schedule(attempt);
    retry.dispose();
    expect(retry.pending).toBe(false);
    vi.runAllTimers();
    expect(attempt).not.toHaveBeenCalled();
  });
});
