/** On PostgreSQL the daemon is one node of a cluster: its sessions are owned under leases. */
import type pino from "pino";
import type { HeadSigner } from "../../log/head-signer.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import { ClusterNode } from "../cluster/cluster-node.js";
import { profilesDigest } from "../cluster/config-digest.js";
import { previousInstanceId } from "../process/discovery-file.js";
import type { ProviderConfigSource } from "../process/provider-config.js";
import type { DaemonSettings } from "../process/settings.js";
import { PgSessionStorage } from "../storage/pg-session-storage.js";
import type { SessionStorage } from "../storage/session-storage.js";

/** The registry, once built: the cluster node adopts and drops sessions through it. */
export interface RegistryHolder {
  current: SessionRegistry | null;
}

/** What joining the cluster needs from boot. */
export interface ClusterJoin {
  settings: DaemonSettings;
  instanceId: string;
  signer: HeadSigner;
  logger: pino.Logger;
  providers: ProviderConfigSource;
  registry: RegistryHolder;
}

/** The cluster node on PostgreSQL (its storage fenced by it), null on SQLite. Not started yet. */
export function joinCluster(storage: SessionStorage, join: ClusterJoin): ClusterNode | null {
  if (!(storage instanceof PgSessionStorage)) return null;
  const { settings, registry } = join;
  const cluster = new ClusterNode(storage.pool, {
    nodeId: join.instanceId,
    url: settings.nodeUrl ?? "",
    leaseMs: settings.leaseSeconds * 1000,
    signer: join.signer,
    logger: join.logger,
    previousIncarnation: previousInstanceId(settings.home),
    profilesDigest: () => profilesDigest(join.providers.current()),
    nodeHistoryMs: settings.nodeHistorySeconds * 1000,
    adopt: async (sessionId) => {
      await registry.current?.get(sessionId);
    },
    lost: (sessionId, epoch) => registry.current?.leaseLost(sessionId, epoch),
  });
  storage.fenceWith(cluster);
  return cluster;
}
