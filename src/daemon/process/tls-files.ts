/**
 * The PEM files of the daemon's HTTPS listener (SKEIN_TLS_CERT, SKEIN_TLS_KEY), read once at
 * start. A key file others may read is refused: whoever reads it can impersonate the daemon.
 *
 * Boundary rule: reads the two files and checks the key file's mode; Node's TLS checks the PEM.
 */
import { readFileSync, statSync } from "node:fs";
import type { TlsPaths } from "./listen-settings.js";
import { SettingsError } from "./settings-error.js";

/** The certificate and key PEM text of `paths`; throws a SettingsError naming what to fix. */
export function readTlsFiles(paths: TlsPaths): { cert: string; key: string } {
  const mode = statOf("SKEIN_TLS_KEY", paths.keyPath).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new SettingsError(
      "SKEIN_TLS_KEY",
      paths.keyPath,
      `the key file is readable or writable by other users (mode ${mode.toString(8).padStart(4, "0")}); run chmod 600 ${paths.keyPath}`,
    );
  }
  return { cert: readPem("SKEIN_TLS_CERT", paths.certPath), key: readPem("SKEIN_TLS_KEY", paths.keyPath) };
}

function statOf(variable: string, path: string): { mode: number } {
  try {
    return statSync(path);
  } catch (error) {
    throw new SettingsError(variable, path, `cannot read it: ${(error as Error).message}`);
  }
}

function readPem(variable: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new SettingsError(variable, path, `cannot read it: ${(error as Error).message}`);
  }
  if (!text.includes("-----BEGIN ")) throw new SettingsError(variable, path, "it is not a PEM file");
  return text;
}
