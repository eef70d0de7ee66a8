/**
 * Choosing the listen port.
 *
 * Boundary rule: port probing only; the HTTP listener itself is opened by the daemon. With
 * SKEIN_PORT=0 the daemon prefers the port its previous run published in daemon.json, so a
 * restarted daemon usually comes back where clients expect it. A probe is only a hint: another
 * process may take the port before the daemon listens, so the caller retries `choosePort` once
 * on EADDRINUSE (the previous port is then busy and a fresh one is picked).
 */
import { createServer } from "node:net";
import { readDiscoveryFile } from "../../home/discovery-file.js";

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

function previousPort(home: string): number | null {
  try {
    return readDiscoveryFile(home)?.port ?? null;
  } catch {
    return null;
  }
}
