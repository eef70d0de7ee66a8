/**
 * Devices on the wire: the body of `POST /devices`, the pairing it answers (a one-time link and
 * its QR code) and the entries of `GET /devices`. `DELETE /devices/{name}` answers as
 * `DELETE /tokens/{name}` does (a device is a token of kind device).
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, namedObject, Time } from "./parts.js";
import { RoleSchema, tokenFields, tokenNamePattern } from "./tokens.js";

const NullableTime = Type.Union([Time, Type.Null()]);

/** Body of `POST /devices`. */
export const CreateDeviceBodySchema = closedObject({
  /** A token's name rules: a device and a token never share a name. */
  name: Type.String({ pattern: tokenNamePattern }),
  /** What the paired browser may do; approver when absent. */
  role: Type.Optional(RoleSchema),
  /** Only this session may be reached from the device. */
  session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
export type CreateDeviceBody = Static<typeof CreateDeviceBodySchema>;

const deviceFields = tokenFields;

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
