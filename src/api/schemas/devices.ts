/**
 * Devices on the wire: the body of `POST /devices`, the pairing it answers (a one-time link and
 * its QR code) and the entries of `GET /devices`.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, NullableString, namedObject, Time } from "./parts.js";

const RoleSchema = literalUnion("viewer", "approver", "driver", "admin");
const NullableTime = Type.Union([Time, Type.Null()]);

/** Body of `POST /devices`. */
export const CreateDeviceBodySchema = closedObject({
  /** A token's name rules: a device and a token never share a name. */
  name: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" }),
  /** What the paired browser may do; approver when absent. */
  role: Type.Optional(RoleSchema),
  /** Only this session may be reached from the device. */
  session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
export type CreateDeviceBody = Static<typeof CreateDeviceBodySchema>;

const deviceFields = {
  name: Type.String(),
  role: RoleSchema,
  session_id: NullableString,
  created_at: Time,
};

/** A device as `GET /devices` lists it. */
const DeviceInfoSchema = namedObject("DeviceInfo", {
  ...deviceFields,
  state: literalUnion("waiting", "expired", "paired"),
  /** Until when its pairing link works (null once paired). */
  pairing_expires_at: NullableTime,
  paired_at: NullableTime,
  /** The paired browser's latest request (to the minute). */
  last_seen_at: NullableTime,
});
export type DeviceInfo = Static<typeof DeviceInfoSchema>;

/** The answer of `POST /devices`: the one-time pairing link, as text and as a QR code. */
export const DevicePairingSchema = namedObject("DevicePairing", {
  ...deviceFields,
  pairing_url: Type.String({
    description: "opens once, within 10 minutes: signs one browser in as the device",
  }),
  pairing_expires_at: Time,
  qr_svg: Type.String({ description: "the pairing link as a QR code (SVG, no styles or scripts)" }),
});
export type DevicePairing = Static<typeof DevicePairingSchema>;

/** The answer of `GET /devices`. */
export const DeviceListSchema = namedObject("DeviceList", { devices: Type.Array(DeviceInfoSchema) });
export type DeviceList = Static<typeof DeviceListSchema>;

/** The answer of `DELETE /devices/{name}`. */
export const DeviceRevokedSchema = namedObject("DeviceRevoked", {
  name: Type.String(),
  revoked: Type.Literal(true),
});
export type DeviceRevoked = Static<typeof DeviceRevokedSchema>;
