/**
 * The cluster's shared config in PostgreSQL (`cluster_config`): reading every entry, and
 * changing one under a lock that serializes writers, so a change is checked against the entries
 * it will join and two nodes' changes cannot together make a config neither checked. A change
 * bumps the config's version and NOTIFYs `configChannel` at commit.
 *
 * Boundary rule: rows only; what an entry may say is home/config-overlay.ts's, what a node does
 * with a change is cluster-config-feed.ts's.
 */
import type pg from "pg";
import { type ConfigEntry, type ConfigSection, isConfigSection } from "../../home/config-overlay.js";
import { ProviderConfigError } from "../../home/provider-config.js";

/** The channel a change of the shared config is announced on (payload: the new version). */
export const configChannel = "skein_config";

/** Any number: every writer of the shared config takes this transaction-level advisory lock. */
const writeLockKey = 7_413_220_001;

/** The shared config as stored: its entries and its version (0: never written). */
export interface StoredConfig {
  version: number;
  entries: ConfigEntry[];
  /** Entries whose value is not JSON (written by hand), as `section/name`: the config is not usable. */
  unreadable?: string[];
}

/** One change: set an entry (`value` given) or remove it (`value` undefined). */
export interface ConfigChange {
  section: ConfigSection;
  name: string;
  value?: unknown;
}

/** The entry a change would remove is not in the shared config. */
export class ConfigEntryMissingError extends Error {
  constructor(readonly change: ConfigChange) {
    super(`the cluster config has no ${change.section} entry "${change.name}"`);
    this.name = "ConfigEntryMissingError";
  }
}

interface Row {
  section: string;
  name: string;
  value: string | null;
  version: string | number;
}

/** Every entry in force and the config's version. */
export async function readStoredConfig(db: pg.Pool | pg.PoolClient): Promise<StoredConfig> {
  const { rows } = await db.query<Row>(
    // Byte order, as `byPlace` sorts: a change's entries and a later read of them compare equal.
    'SELECT section, name, value, version FROM cluster_config ORDER BY section COLLATE "C", name COLLATE "C"',
  );
  let version = 0;
  const entries: ConfigEntry[] = [];
  const unreadable: string[] = [];
  for (const row of rows) {
    version = Math.max(version, Number(row.version));
    // Removed entries and sections of newer daemons are not this daemon's config.
    if (row.value === null || !isConfigSection(row.section)) continue;
    try {
      entries.push({ section: row.section, name: row.name, value: JSON.parse(row.value) as unknown });
    } catch {
      unreadable.push(`${row.section}/${row.name}`);
    }
  }
  return unreadable.length === 0 ? { version, entries } : { version, entries, unreadable };
}

/**
 * Apply `change` if `check` accepts the entries it leads to (check throws to refuse; nothing is
 * written then). Returns the new stored config.
 */
export async function changeStoredConfig(
  pool: pg.Pool,
  change: ConfigChange,
  check: (entries: readonly ConfigEntry[]) => void,
): Promise<StoredConfig> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock($1)", [writeLockKey]);
      const before = await readStoredConfig(client);
      if (before.unreadable !== undefined) throw unreadableError(before.unreadable);
      const same = (entry: ConfigEntry) => entry.section === change.section && entry.name === change.name;
      if (change.value === undefined && !before.entries.some(same)) throw new ConfigEntryMissingError(change);
      const entries = before.entries.filter((entry) => !same(entry));
      if (change.value !== undefined)
        entries.push({ section: change.section, name: change.name, value: change.value });
      entries.sort(byPlace);
      check(entries);
      const version = before.version + 1;
      await client.query(
        `INSERT INTO cluster_config (section, name, value, version, updated_at)
         VALUES ($1, $2, $3, $4, (extract(epoch from clock_timestamp()) * 1000)::bigint)
         ON CONFLICT (section, name) DO UPDATE
         SET value = excluded.value, version = excluded.version, updated_at = excluded.updated_at`,
        [
          change.section,
          change.name,
          change.value === undefined ? null : JSON.stringify(change.value),
          version,
        ],
      );
      await client.query("SELECT pg_notify($1, $2)", [configChannel, String(version)]);
      await client.query("COMMIT");
      return { version, entries };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}

/** Entries by section, then name, in code-unit order. */
function byPlace(a: ConfigEntry, b: ConfigEntry): number {
  const first = a.section === b.section ? a.name : a.section;
  const second = a.section === b.section ? b.name : b.section;
  return first < second ? -1 : first > second ? 1 : 0;
}

/** Why a stored config with entries that are not JSON cannot be used. */
export function unreadableError(unreadable: readonly string[]): ProviderConfigError {
  return new ProviderConfigError(
    "in the database (cluster_config)",
    `entry ${unreadable.join(", ")} is not JSON: write it through PUT /config/… or set its value to NULL`,
  );
}
