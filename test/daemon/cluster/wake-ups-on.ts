/** A node's wake-up connection for the cluster tests, on the real PostgreSQL. */
import { WakeUpHub } from "../../../src/daemon/cluster/wake-up-hub.js";
import type { SessionLogger } from "../../../src/daemon/session/session-services.js";

/** A logger that says nothing. */
const silent: SessionLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** A wake-up hub on `url`, started (the test stops it after what subscribed to it). */
export async function wakeUpsOn(url: string, logger: SessionLogger = silent): Promise<WakeUpHub> {
  const wakeUps = new WakeUpHub({ connectionString: url }, logger);
  await wakeUps.start();
  return wakeUps;
}
