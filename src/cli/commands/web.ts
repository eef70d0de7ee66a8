/**
 * `skein web`: a one-time login link to the daemon's web UI, printed and, on a desktop, opened
 * in the default browser (`--print` only prints); `--device NAME` pairs a phone instead.
 *
 * Boundary rule: one request (`POST /web/login-codes`) and, maybe, one detached opener process;
 * whether the browser really opened is not known and not waited for.
 */
import { spawn } from "node:child_process";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { pairDevice } from "./pair-device.js";

export interface WebOptions {
  /** Print the link only; never start a browser. */
  print?: boolean;
  /** Pair a device of this name instead (pair-device.ts). */
  device?: string;
  role?: string;
  session?: string;
}

/** Print (and maybe open) a login link, or a device's pairing link and QR code. */
export async function openWeb(context: CliContext, options: WebOptions): Promise<ExitCode> {
  if (options.device !== undefined) return pairDevice(context, { ...options, device: options.device });
  if (options.role !== undefined || options.session !== undefined)
    throw new CliError("--role and --session go with --device NAME", exitCodes.usage);
  const client = await connect(context);
  try {
    const link = await client.createLoginLink();
    writeLine(context.terminal.out, link.url);
    const opener = options.print === true ? null : browserOpener(process.platform, context.env);
    const err = context.terminal.err;
    const note =
      opener !== null && launch(opener, link.url)
        ? "opened in your browser; "
        : "open it in a browser on this machine; ";
    writeLine(err, err.paint.dim(`${note}the link works once, until ${link.expires_at}`));
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** The command that opens a URL in the desktop's browser, or null where there is no desktop. */
function browserOpener(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] | null {
  if (platform === "darwin") return ["open"];
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler"];
  const desktop = (env.DISPLAY ?? "") !== "" || (env.WAYLAND_DISPLAY ?? "") !== "";
  return desktop ? ["xdg-open"] : null;
}

function launch(opener: string[], url: string): boolean {
  try {
    const child = spawn(opener[0]!, [...opener.slice(1), url], { detached: true, stdio: "ignore" });
    child.on("error", () => undefined);
    child.unref();
    return child.pid !== undefined;
  } catch {
    return false;
  }
}
