/**
 * Devices in the `api_tokens` table (kind `device`): a phone's or tablet's browser, signed in with
 * a chosen role by spending a one-time pairing code. A device is created with the digest of its
 * pairing code and no usable secret (`digest` holds the digest of random bytes nobody was told);
 * spending the code stores the digest of the browser's new cookie in `digest` and clears the
 * pairing, in one UPDATE whose WHERE names the code: of two browsers that race with one code,
 * exactly one changes the row (SQLite runs one writer at a time; PostgreSQL re-checks the WHERE of
 * the second UPDATE once the first commits, and finds no row). Revoking deletes the row: every
 * node looks the cookie up on every request, so it stops working at once everywhere.
 *
 * Boundary rule: SQL programs (sql-program.ts) for either backend.
 */
import type { Role } from "../../api/roles.js";
import { all, get, run, type SqlProgram } from "./sql-program.js";

/** A device as stored (times in ms since the epoch). */
export interface DeviceRow {
  name: string;
  role: Role;
  sessionId: string | null;
  createdAt: number;
  /** Until when its pairing code works; null once spent. */
  pairingExpiresAt: number | null;
  /** When a browser spent the pairing code; null until then. */
  pairedAt: number | null;
  /** The paired browser's latest request (written at most once a minute); null before. */
  lastSeenAt: number | null;
}

/** A new device: its pairing code's digest, and a digest no secret has (until it is paired). */
export interface NewDevice {
  name: string;
  role: Role;
  sessionId: string | null;
  createdAt: number;
  unusableDigest: string;
  pairingDigest: string;
  pairingExpiresAt: number;
}

interface DeviceRecord {
  name: string;
  role: Role;
  session_id: string | null;
  created_at: number | string;
  pairing_expires_at: number | string | null;
  paired_at: number | string | null;
  last_seen_at: number | string | null;
}

const columns = "name, role, session_id, created_at, pairing_expires_at, paired_at, last_seen_at";

const timeOf = (value: number | string | null): number | null => (value === null ? null : Number(value));

function rowOf(record: DeviceRecord): DeviceRow {
  return {
    name: record.name,
    role: record.role,
    sessionId: record.session_id,
    createdAt: Number(record.created_at),
    pairingExpiresAt: timeOf(record.pairing_expires_at),
    pairedAt: timeOf(record.paired_at),
    lastSeenAt: timeOf(record.last_seen_at),
  };
}

/** Store a new device waiting for its pairing; false (nothing written) when the name is taken. */
export function* insertDeviceProgram(device: NewDevice): SqlProgram<boolean> {
  const result = yield* run(
    "INSERT INTO api_tokens (name, digest, role, session_id, created_at, kind, pairing_digest, pairing_expires_at) " +
      "VALUES (?, ?, ?, ?, ?, 'device', ?, ?) ON CONFLICT (name) DO NOTHING",
    device.name,
    device.unusableDigest,
    device.role,
    device.sessionId,
    device.createdAt,
    device.pairingDigest,
    device.pairingExpiresAt,
  );
  return result.changes === 1;
}

/**
 * Spend the pairing code whose digest is `pairingDigest` at `now`: the device it pairs, whose
 * secret is from now on the cookie of digest `cookieDigest`; null when no device waits for that
 * code (unknown, spent already, or expired).
 */
export function* spendPairingProgram(
  pairingDigest: string,
  cookieDigest: string,
  now: number,
): SqlProgram<DeviceRow | null> {
  const record = yield* get<DeviceRecord>(
    "UPDATE api_tokens SET digest = ?, pairing_digest = NULL, pairing_expires_at = NULL, paired_at = ?, last_seen_at = ? " +
      `WHERE pairing_digest = ? AND kind = 'device' AND pairing_expires_at > ? RETURNING ${columns}`,
    cookieDigest,
    now,
    now,
    pairingDigest,
    now,
  );
  return record === undefined ? null : rowOf(record);
}

/** The paired device whose cookie has `digest`, or null. */
export function* deviceByCookieDigestProgram(digest: string): SqlProgram<DeviceRow | null> {
  const record = yield* get<DeviceRecord>(
    `SELECT ${columns} FROM api_tokens WHERE digest = ? AND kind = 'device' AND paired_at IS NOT NULL`,
    digest,
  );
  return record === undefined ? null : rowOf(record);
}

/** Every device, oldest first. */
export function* listDevicesProgram(): SqlProgram<DeviceRow[]> {
  const records = yield* all<DeviceRecord>(
    `SELECT ${columns} FROM api_tokens WHERE kind = 'device' ORDER BY created_at, name`,
  );
  return records.map(rowOf);
}

/** Revoke (remove) the device `name`; false when there was no such device. */
export function* deleteDeviceProgram(name: string): SqlProgram<boolean> {
  const result = yield* run("DELETE FROM api_tokens WHERE name = ? AND kind = 'device'", name);
  return result.changes === 1;
}

/** Note that the device `name` was seen at `now`. */
export function* touchDeviceProgram(name: string, now: number): SqlProgram<void> {
  yield* run("UPDATE api_tokens SET last_seen_at = ? WHERE name = ? AND kind = 'device'", now, name);
}
