/**
 * Choosing the listen port.
 *
 * Boundary rule: port probing only; the HTTP listener itself is opened by the daemon. With
 * SKEIN_PORT=0 the daemon prefers the port it chose before, kept in `daemon.port` (a clean
 * shutdown removes daemon.json but not that file), else the one a crashed run published in
 * daemon.json, so a restarted daemon comes back where clients, bookmarks and browser logins
 * (bound to the page's origin, port included) expect it. A probe is only a hint: another
 * process may take the port before the daemon listens, so the caller retries `choosePort` once
 * on EADDRINUSE (the previous port is then busy and a fresh one is picked).
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { writeFileAtomic } from "../../home/atomic-file.js";
import { readDiscoveryFile } from "../../home/discovery-file.js";
import { homePaths } from "../../home/home.js";

/** The port to listen on: the configured one, else the previous daemon's if free, else a free one. */
export async function choosePort(options: {
  configured: number;
  home: string;
  host: string;
}): Promise<number> {
  if (options.configured !== 0) return options.configured;
  const previous = previousPort(options.home);
  if (previous !== null && (await isPortFree(options.host, previous))) return previous;
  return pickFreePort(options.host);
}

/** True when `port` can be bound on `host` right now. */
export async function isPortFree(host: string, port: number): Promise<boolean> {
  try {
    await closeAfterListen(host, port);
    return true;
  } catch {
    return false;
  }
}

/** A port the OS considers free on `host` (bind 0, read, close). */
export function pickFreePort(host: string): Promise<number> {
  return closeAfterListen(host, 0);
}

function closeAfterListen(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/** Keep `port` as the one to come back to (mode 0600, like every file of the home). */
export async function rememberPort(home: string, port: number): Promise<void> {
  await writeFileAtomic(homePaths(home).port, `${port}\n`, 0o600);
}

function previousPort(home: string): number | null {
  return rememberedPort(home) ?? publishedPort(home);
}

/** The port in `daemon.port`; null when absent or not a port (then a new one is chosen and kept). */
function rememberedPort(home: string): number | null {
  let text: string;
  try {
    text = readFileSync(homePaths(home).port, "utf8").trim();
  } catch {
    return null;
  }
  const port = /^\d{1,5}$/.test(text) ? Number(text) : 0;
  return port >= 1 && port <= 65_535 ? port : null;
}

function publishedPort(home: string): number | null {
  try {
    return readDiscoveryFile(home)?.port ?? null;
  } catch {
    return null;
  }
}
