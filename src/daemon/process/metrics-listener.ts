/**
 * The metrics on a port of their own, without the bearer token (SKEIN_METRICS_PORT): for a
 * scraper that cannot be given the token. It answers `GET /metrics` and nothing else, on the
 * daemon's own bind address. Metrics carry counts, tool and model names, never a session's
 * content or a secret.
 *
 * Why Host is still checked on a loopback address: a web page the person visits could reach
 * a loopback port through a DNS name of its own pointing there (DNS rebinding); its requests
 * name that host, not the address.
 */
import { createServer, type Server } from "node:http";
import type { DaemonMetrics } from "./daemon-metrics.js";
import { isLoopbackAddress } from "./settings.js";

/** Serve `metrics` on `host`:`port`; resolves once listening (rejects when the port is taken). */
export async function listenForMetrics(metrics: DaemonMetrics, host: string, port: number): Promise<Server> {
  const loopback = isLoopbackAddress(host);
  const hostNames = new Set([`${hostLiteral(host)}:${port}`, `localhost:${port}`]);
  const server = createServer((request, response) => {
    if (loopback && !hostNames.has(request.headers.host ?? "")) {
      response.writeHead(421, { "content-type": "text/plain" }).end("unexpected Host\n");
      return;
    }
    if (request.url !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404, { "content-type": "text/plain" }).end("only GET /metrics is served here\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) =>
        response
          .writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" })
          .end(request.method === "HEAD" ? undefined : text),
      () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return server;
}

function hostLiteral(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
