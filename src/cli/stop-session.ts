/** Stopping a session's running turn and waiting until it is idle (before deleting it). */
import { setTimeout as sleep } from "node:timers/promises";
import type { DaemonClient } from "../client/daemon-client.js";
import { CliError } from "./cli-error.js";

/** Interrupt a session and wait (up to `timeoutMs`) until it is idle. */
export async function stopSession(client: DaemonClient, id: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let snapshot = await client.getSession(id, 0);
  if (snapshot.status.phase === "idle" && snapshot.pending_inputs.length === 0) return;
  await client.interrupt(id, snapshot.status.run_id, snapshot.input_order);
  while (snapshot.status.phase !== "idle") {
    if (Date.now() > deadline) throw new CliError(`session ${id} did not stop within ${timeoutMs / 1000} s`);
    await sleep(50);
    snapshot = await client.getSession(id, 0);
  }
}
