/**
 * A loopback port nothing listens on right now (bound, then closed): for a server a test starts
 * on a known port, or for a connection that must be refused.
 */
import { createServer } from "node:net";

/** A port nothing listens on at `address` now. */
export function freePort(address = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, address, () => {
      const bound = server.address();
      const port = typeof bound === "object" && bound !== null ? bound.port : 0;
      server.close(() => resolve(port));
    });
  });
}
