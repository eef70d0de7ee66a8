/** A node's wake-up connection for the cluster tests, on the real PostgreSQL. */
import { WakeUpConnection } from "../../../src/daemon/cluster/wake-up-connection.js";
import type { SessionLogger } from "../../../src/daemon/session/session-services.js";

/** A logger that says nothing. */
const silent: SessionLogger = { info: () => {}, warn: () => {}, error: () => {} };

/** A wake-up connection on `url`, started (the test stops it after what subscribed to it). */
export async function wakeUpsOn(url: string, logger: SessionLogger = silent): Promise<WakeUpConnection> {
  const wakeUps = new WakeUpConnection({ connectionString: url }, logger);
  await wakeUps.start();
  return wakeUps;
}
