/**
 * Whether the daemon can take work now, for `GET /readyz`: not draining, its database answers
 * within a bound and holds every migration this daemon knows, and (on a cluster) its node is
 * registered and renewed its leases within a lease.
 *
 * Boundary rule: a pure composition of checks the daemon hands in; the reason is for the log,
 * never for the probe's answer (which carries no data).
 */

/** What readiness is judged from. */
export interface ReadinessSources {
  draining(): boolean;
  /** The schema version the database holds (one read). */
  appliedSchemaVersion(): Promise<number>;
  /** The version this daemon migrates to. */
  knownSchemaVersion: number;
  /** The cluster node's reason not to be ready, or null (absent without a cluster). */
  clusterNotReady?: () => string | null;
  /** How long the database may take to answer (ms). */
  databaseTimeoutMs: number;
}

/** Ready, or not with the reason why. */
export type Readiness = { ready: true } | { ready: false; reason: string };

/** Judge readiness now. */
export async function checkReadiness(sources: ReadinessSources): Promise<Readiness> {
  if (sources.draining()) return { ready: false, reason: "the daemon is draining" };
  const cluster = sources.clusterNotReady?.() ?? null;
  if (cluster !== null) return { ready: false, reason: cluster };
  let version: number;
  try {
    version = await withinMs(sources.appliedSchemaVersion(), sources.databaseTimeoutMs);
  } catch (error) {
    return { ready: false, reason: `the database did not answer: ${(error as Error).message}` };
  }
  if (version !== sources.knownSchemaVersion) {
    return {
      ready: false,
      reason: `the database holds schema version ${version}, this daemon ${sources.knownSchemaVersion}`,
    };
  }
  return { ready: true };
}

async function withinMs<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
