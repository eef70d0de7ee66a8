/** On PostgreSQL the node follows the cluster's shared config, laid over its config.json. */
import type pino from "pino";
import { ClusterConfigFeed } from "../cluster/cluster-config-feed.js";
import type { WakeUpConnection } from "../cluster/wake-up-connection.js";
import type { ProviderConfigSource } from "../process/provider-config.js";
import { PgSessionStorage } from "../storage/pg-session-storage.js";
import type { SessionStorage } from "../storage/session-storage.js";

/** How often a node reads the shared config besides its NOTIFYs (a lost notification's bound). */
const sharedConfigPollMs = 5_000;

/**
 * The shared config, read and followed, its changes heard on `wakeUps` (null on SQLite); throws
 * when the database cannot be read.
 */
export async function followSharedConfig(
  storage: SessionStorage,
  wakeUps: WakeUpConnection | null,
  providers: ProviderConfigSource,
  logger: pino.Logger,
): Promise<ClusterConfigFeed | null> {
  if (!(storage instanceof PgSessionStorage) || wakeUps === null) return null;
  const feed = new ClusterConfigFeed(storage.pool, providers, logger, sharedConfigPollMs);
  await feed.start(wakeUps);
  return feed;
}
