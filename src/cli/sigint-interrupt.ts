/**
 * Ctrl-C while a command waits: the first asks the work to stop and keeps waiting, the second
 * gives up at once.
 */

/**
 * Wait for `work`; on the first SIGINT call `onInterrupt` and keep waiting, on the second give
 * up ("forced").
 */
export async function withInterrupt<T>(onInterrupt: () => void, work: Promise<T>): Promise<T | "forced"> {
  let interrupts = 0;
  let forced: (value: "forced") => void = () => {};
  const forcedPromise = new Promise<"forced">((resolve) => {
    forced = resolve;
  });
  const handler = (): void => {
    interrupts += 1;
    if (interrupts === 1) onInterrupt();
    else forced("forced");
  };
  process.on("SIGINT", handler);
  try {
    return await Promise.race([work, forcedPromise]);
  } finally {
    process.off("SIGINT", handler);
  }
}
