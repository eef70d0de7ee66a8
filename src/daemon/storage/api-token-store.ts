/**
 * Named API tokens in the daemon's database (api-tokens-table.ts), on either backend.
 *
 * Boundary rule: storage only. Reads run outside the group commit; writes go through it like a
 * schedule's (not a session's write, so no lease fences them).
 */
import {
  type ApiTokenRow,
  apiTokenByDigestProgram,
  apiTokenByNameProgram,
  deleteApiTokenProgram,
  insertApiTokenProgram,
  listApiTokensProgram,
} from "./api-tokens-table.js";
import { type DeviceStore, deviceStoreOn } from "./device-store.js";
import type { SqlProgram } from "./sql-program.js";
import type { StorageBackend } from "./storage-backend.js";

/** The named tokens of the daemon's database. */
export interface ApiTokenStore {
  /** Store a new token; false (nothing written) when its name is taken. */
  create(row: ApiTokenRow): Promise<boolean>;
  byDigest(digest: string): Promise<ApiTokenRow | null>;
  byName(name: string): Promise<ApiTokenRow | null>;
  /** Every token, oldest first. */
  list(): Promise<ApiTokenRow[]>;
  /** Revoke; false when there was no such token. */
  remove(name: string): Promise<boolean>;
  /** The table's other kind: paired browsers (device-store.ts). */
  readonly devices: DeviceStore;
}

/** The token store on `backend`. */
export function apiTokenStoreOn<Tx>(backend: StorageBackend<Tx>): ApiTokenStore {
  const write = <T>(name: string, program: () => SqlProgram<T>): Promise<T> =>
    backend.log.commitQueue.run(`token:${name}`, (tx) => backend.run(tx, program()));
  return {
    create: (row) => write(row.name, () => insertApiTokenProgram(row)),
    byDigest: (digest) => backend.read(apiTokenByDigestProgram(digest)),
    byName: (name) => backend.read(apiTokenByNameProgram(name)),
    list: () => backend.read(listApiTokensProgram()),
    remove: (name) => write(name, () => deleteApiTokenProgram(name)),
    devices: deviceStoreOn(backend),
  };
}
