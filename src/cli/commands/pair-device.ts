/**
 * `skein web --device NAME [--role ROLE] [--session ID]`: a new device and its one-time pairing
 * link, printed on stdout (the link's line first, then its QR code in block characters) for a
 * phone to open or scan; what the link does and how to revoke the device go to stderr.
 *
 * Boundary rule: one request (`POST /devices`, two with a session prefix to resolve); the QR code
 * is drawn here from the link (the `qr` library, no network).
 */
import encodeQR from "qr";
import { isRole, roles } from "../../api/roles.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId } from "../session-ref.js";

/** What `skein web --device` was given. */
export interface PairDeviceOptions {
  device: string;
  role?: string;
  session?: string;
}

/** Create the device and print its pairing link and the link's QR code. */
export async function pairDevice(context: CliContext, options: PairDeviceOptions): Promise<ExitCode> {
  if (options.role !== undefined && !isRole(options.role)) {
    throw new CliError(
      `--role must be one of ${roles.join(", ")}, got ${JSON.stringify(options.role)}`,
      exitCodes.usage,
    );
  }
  const client = await connect(context);
  try {
    const pairing = await client.tokens.devices.create({
      name: options.device,
      ...(options.role !== undefined && isRole(options.role) ? { role: options.role } : {}),
      ...(options.session === undefined
        ? {}
        : { session_id: await resolveSessionId(client, options.session) }),
    });
    const out = context.terminal.out;
    writeLine(out, pairing.pairing_url);
    writeLine(out);
    // Light modules as full blocks: dark-background terminals show the code as a phone expects it.
    for (const line of qrLines(pairing.pairing_url)) writeLine(out, line);
    const err = context.terminal.err;
    const scope = pairing.session_id === null ? "every session" : `session ${pairing.session_id}`;
    writeLine(
      err,
      err.paint.dim(
        `scan the code with the phone (or open the link there): it signs one browser in as device ` +
          `${pairing.name}, role ${pairing.role}, ${scope}; the link works once, until ${pairing.pairing_expires_at}. ` +
          `Revoke it with: skein devices revoke ${pairing.name}`,
      ),
    );
    if (namesThisMachineOnly(pairing.pairing_url))
      writeLine(
        err,
        err.paint.yellow(
          "the link names this machine's loopback address, which a phone cannot reach: " +
            "set SKEIN_LISTEN (with TLS) and SKEIN_PUBLIC_URLS (README: Using Skein from another device)",
        ),
      );
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** The QR code of `text` as lines of block characters (two modules a character, top and bottom). */
function qrLines(text: string): string[] {
  return encodeQR(text, "ascii", { ecc: "medium" }).replace(/\n+$/, "").split("\n");
}

function namesThisMachineOnly(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "[::1]" || host.startsWith("127.");
}
