/**
 * The devices page (`#/devices`, offered to an admin): pair a phone's browser (a one-time link
 * and its QR code, as the daemon draws it: an SVG shown as an image, so the page's CSP needs no
 * exception), list the devices and revoke one.
 */
import { useCallback, useEffect, useState } from "react";
import type { DeviceInfo, DeviceList, DevicePairing } from "../../../src/api/devices.js";
import { call } from "../daemon-api.js";
import "./devices.css";

const roleChoices = ["viewer", "approver", "driver", "admin"] as const;

/** The whole devices page. */
export function DevicesPage() {
  const [devices, setDevices] = useState<DeviceInfo[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setDevices((await call<DeviceList>("GET", "/devices")).devices);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  }, []);
  useEffect(() => void reload(), [reload]);
  const revoke = async (name: string): Promise<void> => {
    try {
      await call("DELETE", `/devices/${encodeURIComponent(name)}`);
      await reload();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <main className="devices" data-testid="devices-page">
      <PairingForm onPaired={() => void reload()} />
      {failure !== null ? <div className="banner failure">{failure}</div> : null}
      <table className="session-list" data-testid="device-list">
        <thead>
          <tr>
            <th>Device</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(devices ?? []).map((device) => (
            <tr key={device.name} data-device={device.name}>
              <td>
                {device.name}
                <div className="sub">
                  {device.role} ·{" "}
                  {device.session_id === null ? "every session" : `session ${device.session_id}`}
                </div>
              </td>
              <td>{stateText(device)}</td>
              <td>
                <button type="button" className="danger" onClick={() => void revoke(device.name)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {devices !== null && devices.length === 0 ? <p className="empty">No devices yet.</p> : null}
    </main>
  );
}

function PairingForm({ onPaired }: { onPaired: () => void }) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<(typeof roleChoices)[number]>("approver");
  const [pairing, setPairing] = useState<DevicePairing | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const pair = async (): Promise<void> => {
    setFailure(null);
    try {
      setPairing(await call<DevicePairing>("POST", "/devices", { name: name.trim(), role }));
      setName("");
      onPaired();
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
    }
  };
  return (
    <form
      className="new-session"
      onSubmit={(event) => {
        event.preventDefault();
        void pair();
      }}
    >
      <h2>Pair a device</h2>
      <label>
        Name
        <input name="device" value={name} onChange={(event) => setName(event.target.value)} required />
      </label>
      <label>
        Role
        <select
          name="role"
          value={role}
          onChange={(event) => setRole(event.target.value as (typeof roleChoices)[number])}
        >
          {roleChoices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={name.trim() === ""}>
        Pair
      </button>
      {failure !== null ? <div className="banner failure">{failure}</div> : null}
      {pairing !== null ? (
        <div className="pairing" data-testid="pairing">
          <img
            className="qr"
            alt={`QR code of the pairing link for ${pairing.name}`}
            src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(pairing.qr_svg)}`}
          />
          <p>
            Scan it with {pairing.name}'s camera, or open{" "}
            <code data-testid="pairing-url">{pairing.pairing_url}</code> there. It works once, until{" "}
            {new Date(pairing.pairing_expires_at).toLocaleTimeString()}, and signs that browser in as{" "}
            {pairing.role}.
          </p>
          {/^(127\.|localhost$|\[::1\]$)/.test(new URL(pairing.pairing_url).hostname) ? (
            <div className="banner notice">
              The link names this machine's loopback address, which a phone cannot reach: set
              SKEIN_PUBLIC_URLS (and SKEIN_LISTEN with TLS) to the address the phone uses.
            </div>
          ) : null}
        </div>
      ) : null}
    </form>
  );
}

function stateText(device: DeviceInfo): string {
  switch (device.state) {
    case "paired":
      return `paired; last seen ${device.last_seen_at === null ? "never" : new Date(device.last_seen_at).toLocaleString()}`;
    case "waiting":
      return `waiting for pairing until ${new Date(device.pairing_expires_at ?? "").toLocaleTimeString()}`;
    case "expired":
      return "pairing link expired";
    default: {
      const unknown: never = device.state;
      return unknown;
    }
  }
}
