/**
 * `skein devices [list]`, `skein devices revoke NAME`: the paired (and waiting) devices through
 * the daemon's `/devices` routes. Pairing is `skein web --device NAME` (pair-device.ts).
 *
 * Boundary rule: each command is one request; the daemon checks names.
 */
import type { DeviceInfo } from "../../api/devices.js";
import { type CliContext, connect } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";

/** `skein devices`: one line a device. */
export async function listDevices(context: CliContext, options: { json?: boolean }): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const devices = await client.tokens.devices.list();
    const out = context.terminal.out;
    if (options.json === true) {
      writeLine(out, JSON.stringify(devices, null, 2));
      return exitCodes.ok;
    }
    if (devices.length === 0) writeLine(out, "no devices (pair one with skein web --device NAME)");
    for (const device of devices) writeLine(out, deviceLine(device));
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** `skein devices revoke NAME`. */
export async function revokeDevice(context: CliContext, name: string): Promise<ExitCode> {
  const client = await connect(context);
  try {
    await client.tokens.devices.revoke(name);
    writeLine(context.terminal.out, `revoked device ${name}`);
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

function deviceLine(device: DeviceInfo): string {
  const scope = device.session_id === null ? "every session" : `session ${device.session_id}`;
  const state =
    device.state === "paired"
      ? `paired ${device.paired_at}  last seen ${device.last_seen_at ?? "never"}`
      : device.state === "waiting"
        ? `waiting for pairing until ${device.pairing_expires_at}`
        : "pairing link expired (revoke it and pair again)";
  return `${device.name}  ${device.role}  ${scope}  created ${device.created_at}  ${state}`;
}
