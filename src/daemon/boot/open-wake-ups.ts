/** On PostgreSQL a node hears every wake-up (hand-offs, config, tasks, schedules) on one connection. */
import type pino from "pino";
import { WakeUpConnection } from "../cluster/wake-up-connection.js";
import type { DaemonSettings } from "../process/settings.js";

/** The node's wake-up connection, listening (null on SQLite); throws when the database cannot be reached. */
export async function openWakeUps(
  settings: DaemonSettings,
  logger: pino.Logger,
): Promise<WakeUpConnection | null> {
  if (settings.database.kind !== "postgres") return null;
  const wakeUps = new WakeUpConnection({ connectionString: settings.database.url }, logger);
  await wakeUps.start();
  return wakeUps;
}
