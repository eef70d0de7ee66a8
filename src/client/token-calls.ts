/**
 * The token routes as client calls (`DaemonClient.tokens`): `POST`/`GET /tokens`,
 * `DELETE /tokens/{name}`, and the devices' (`tokens.devices`, tokens of kind device):
 * `POST`/`GET /devices`, `DELETE /devices/{name}`.
 */
import type { CreateDeviceBody, DeviceInfo, DeviceList, DevicePairing } from "../api/devices.js";
import type { CreatedToken, CreateTokenBody, TokenInfo, TokenList, TokenRevoked } from "../api/tokens.js";
import type { CallOptions } from "./client-options.js";

/** One JSON request to the daemon (an error answer throws `DaemonApiError`). */
type JsonCall = <T>(method: string, path: string, options?: CallOptions) => Promise<T>;

export interface TokenCalls {
  /** `POST /tokens`: the new token, its secret shown this once. */
  create(body: CreateTokenBody): Promise<CreatedToken>;
  /** `GET /tokens`, oldest first. */
  list(): Promise<TokenInfo[]>;
  /** `DELETE /tokens/{name}`. */
  revoke(name: string): Promise<TokenRevoked>;
  readonly devices: DeviceCalls;
}

interface DeviceCalls {
  /** `POST /devices`: the new device's one-time pairing link and its QR code. */
  create(body: CreateDeviceBody): Promise<DevicePairing>;
  /** `GET /devices`, oldest first. */
  list(): Promise<DeviceInfo[]>;
  /** `DELETE /devices/{name}`. */
  revoke(name: string): Promise<TokenRevoked>;
}

/** The token calls made through `call`. */
export function tokenCalls(call: JsonCall): TokenCalls {
  return {
    create: (body) => call("POST", "/tokens", { body }),
    list: async () => (await call<TokenList>("GET", "/tokens")).tokens,
    revoke: (name) => call("DELETE", `/tokens/${encodeURIComponent(name)}`),
    devices: {
      create: (body) => call("POST", "/devices", { body }),
      list: async () => (await call<DeviceList>("GET", "/devices")).devices,
      revoke: (name) => call("DELETE", `/devices/${encodeURIComponent(name)}`),
    },
  };
}
