/**
 * Devices: a phone's or tablet's browser, paired once through a one-time link (or its QR code)
 * and from then on signed in by its own cookie with a chosen role, until it is revoked. A device
 * is a named token of kind device (the daemon keeps the digest of its cookie, in the database all
 * nodes share), so revoking it refuses the cookie's next request on every node.
 *
 * Boundary rule: names, lifetimes and the wire types (each the static type of its schema in
 * schemas/devices.ts). The daemon pairs and checks (src/daemon/routes/device-routes.ts); the CLI
 * asks through `skein/client`.
 */
export type {
  CreateDeviceBody,
  DeviceInfo,
  DeviceList,
  DevicePairing,
} from "./schemas/devices.js";

/** The path a pairing link opens: `GET /pair?code=…` shows a button; its `POST` sets the device's cookie and redirects to `/`. */
export const pairPath = "/pair";

/** How long a pairing link works (ms). */
export const pairingLifetimeMs = 10 * 60_000;

/** How long a paired device stays signed in (ms): then it is paired again. */
export const deviceLoginLifetimeMs = 90 * 24 * 60 * 60_000;

/** The role a device gets when none is asked for: it reads and answers approvals, nothing more. */
export const defaultDeviceRole = "approver";
