/**
 * Devices: `POST /devices` (a device waiting for its pairing, and its one-time link with the
 * link's QR code), `GET /devices` (never a secret) and `DELETE /devices/{name}` (revoke: the
 * device's cookie is refused from its next request on, on every node). Admin only, like every
 * route that changes who may do what. The link itself is spent at `POST /pair`, the button of the page `GET /pair` shows (pairing-route.ts).
 *
 * Boundary rule: checks and storage; the ingress hook looks devices' cookies up (token-lookup.ts).
 */
import { randomBytes } from "node:crypto";
import encodeQR from "qr";
import { type Static, Type } from "typebox";
import {
  type CreateDeviceBody,
  type DeviceInfo,
  type DevicePairing,
  defaultDeviceRole,
  pairingLifetimeMs,
  pairPath,
} from "../../api/devices.js";
import { bootstrapTokenName } from "../../api/roles.js";
import { CreateDeviceBodySchema, DeviceListSchema, DevicePairingSchema } from "../../api/schemas/devices.js";
import { TokenRevokedSchema } from "../../api/schemas/tokens.js";
import type { TokenRevoked } from "../../api/tokens.js";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { newTokenSecret, secretDigest } from "../http/token-secret.js";
import type { DeviceStore } from "../storage/device-store.js";
import type { DeviceRow, NewDevice } from "../storage/device-table.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";

const DeviceParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });

/** What the device routes need. */
export interface DeviceRouteOptions {
  devices: DeviceStore;
  now(): number;
  /** Where a phone reaches the daemon (SKEIN_PUBLIC_URLS); none: the Host the request named. */
  publicUrls: readonly string[];
  /** How the daemon is reached: https with TLS or behind a TLS proxy. */
  scheme: "http" | "https";
}

/** Register the device routes. */
export function registerDeviceRoutes(app: HttpApp, options: DeviceRouteOptions): void {
  const { devices, now } = options;
  registerResource(app, "/devices", {
    POST: {
      schema: { body: CreateDeviceBodySchema, response: { 201: DevicePairingSchema } },
      config: {
        role: "admin",
        doc: {
          summary: "Create a device and its one-time pairing link (with the link's QR code, as SVG)",
          description:
            "The link works once, within 10 minutes: the browser that opens it is signed in as the device, with its role (approver when none is given). A taken name (a token's or a device's) is 409 token_exists.",
        },
      },
      handler: async (request, reply) => {
        const body = request.body as CreateDeviceBody;
        if (body.name === bootstrapTokenName)
          throw problem("invalid_request", `the name ${bootstrapTokenName} is the daemon's own token's`);
        if (body.session_id !== undefined) checkIdShape(body.session_id, "session_id");
        const code = randomBytes(32).toString("base64url");
        const device: NewDevice = {
          name: body.name,
          role: body.role ?? defaultDeviceRole,
          sessionId: body.session_id ?? null,
          createdAt: now(),
          // A digest nobody holds the secret of: the device signs nobody in before it is paired.
          unusableDigest: secretDigest(newTokenSecret()),
          pairingDigest: secretDigest(code),
          pairingExpiresAt: now() + pairingLifetimeMs,
        };
        if (!(await answerWith(() => devices.create(device))))
          throw problem(
            "token_exists",
            `a device or token named ${body.name} exists; revoke it first (skein devices revoke ${body.name}) or pick another name`,
          );
        const base =
          options.publicUrls[0]?.replace(/\/+$/, "") ?? `${options.scheme}://${request.headers.host}`;
        const url = `${base}${pairPath}?code=${code}`;
        const pairing: DevicePairing = {
          name: device.name,
          role: device.role,
          session_id: device.sessionId,
          created_at: new Date(device.createdAt).toISOString(),
          pairing_url: url,
          pairing_expires_at: new Date(device.pairingExpiresAt).toISOString(),
          qr_svg: encodeQR(url, "svg", { ecc: "medium", border: 4 }),
        };
        return reply.code(201).send(pairing);
      },
    },
    GET: {
      schema: { response: { 200: DeviceListSchema } },
      config: {
        role: "admin",
        doc: { summary: "The devices: names, roles, whether paired, when last seen (never a secret)" },
      },
      handler: async () => ({
        devices: (await answerWith(() => devices.list())).map((row) => infoOf(row, now())),
      }),
    },
  });
  registerResource(app, "/devices/:name", {
    DELETE: {
      schema: { params: DeviceParams, response: { 200: TokenRevokedSchema } },
      config: {
        role: "admin",
        doc: { summary: "Revoke a device (its cookie is refused from its next request on, on every node)" },
      },
      handler: async (request): Promise<TokenRevoked> => {
        const { name } = request.params as Static<typeof DeviceParams>;
        if (!(await answerWith(() => devices.remove(name))))
          throw problem("resource_not_found", `there is no device named ${name}`);
        return { name, revoked: true };
      },
    },
  });
}

const timeOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function infoOf(row: DeviceRow, now: number): DeviceInfo {
  const state = row.pairedAt !== null ? "paired" : (row.pairingExpiresAt ?? 0) > now ? "waiting" : "expired";
  return {
    name: row.name,
    role: row.role,
    session_id: row.sessionId,
    created_at: new Date(row.createdAt).toISOString(),
    state,
    pairing_expires_at: timeOrNull(row.pairingExpiresAt),
    paired_at: timeOrNull(row.pairedAt),
    last_seen_at: timeOrNull(row.lastSeenAt),
  };
}
