/**
 * Devices in the daemon's database (device-table.ts), on either backend.
 *
 * Boundary rule: storage only. Reads run outside the group commit; writes go through it like a
 * token's (not a session's write, so no lease fences them).
 */
import {
  type DeviceRow,
  deleteDeviceProgram,
  deviceByCookieDigestProgram,
  insertDeviceProgram,
  listDevicesProgram,
  type NewDevice,
  spendPairingProgram,
  touchDeviceProgram,
} from "./device-table.js";
import type { SqlProgram } from "./sql-program.js";
import type { StorageBackend } from "./storage-backend.js";

/** The devices of the daemon's database. */
export interface DeviceStore {
  /** Store a device waiting for its pairing; false (nothing written) when its name is taken. */
  create(device: NewDevice): Promise<boolean>;
  /** Spend a pairing code (by digest) for a cookie (by digest): the device paired, or null. */
  pair(pairingDigest: string, cookieDigest: string, now: number): Promise<DeviceRow | null>;
  /** The paired device whose cookie has `digest`, or null (revoked, or never paired). */
  byCookieDigest(digest: string): Promise<DeviceRow | null>;
  /** Every device, oldest first. */
  list(): Promise<DeviceRow[]>;
  /** Revoke; false when there was no such device. */
  remove(name: string): Promise<boolean>;
  /** Record the device's latest request. */
  touch(name: string, now: number): Promise<void>;
}

/** The device store on `backend`. */
export function deviceStoreOn<Tx>(backend: StorageBackend<Tx>): DeviceStore {
  const write = <T>(name: string, program: () => SqlProgram<T>): Promise<T> =>
    backend.log.commitQueue.run(`token:${name}`, (tx) => backend.run(tx, program()));
  return {
    create: (device) => write(device.name, () => insertDeviceProgram(device)),
    // Keyed by the code's digest: the device's name is not known until the UPDATE finds it.
    pair: (pairingDigest, cookieDigest, now) =>
      write(`pairing:${pairingDigest}`, () => spendPairingProgram(pairingDigest, cookieDigest, now)),
    byCookieDigest: (digest) => backend.read(deviceByCookieDigestProgram(digest)),
    list: () => backend.read(listDevicesProgram()),
    remove: (name) => write(name, () => deleteDeviceProgram(name)),
    touch: (name, now) => write(name, () => touchDeviceProgram(name, now)),
  };
}
