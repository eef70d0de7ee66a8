import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { protocolVersion } from "../../src/api/protocol.js";
import type { ServerInfo } from "../../src/api/server.js";
import { type CliContext, connectFor, connectWithServer } from "../../src/cli/cli-context.js";
import { processTerminal } from "../../src/cli/render/terminal.js";
import { DaemonUnreachableError } from "../../src/client/api-errors.js";
import { homePaths } from "../../src/home/home.js";

const shell = { mode: "off", network: false, detail: "no bubblewrap", hint: "install it" } as const;

function serverInfo(state: ServerInfo["state"]): ServerInfo {
  return { instance_id: "fake", protocol: protocolVersion, state, capabilities: {}, version: "0.0.0", shell };
}

/**
 * A daemon that answers `GET /server` with the states given in turn (the last one repeats), and
 * `GET /config` with `{"ok":true}`, or 503 daemon_unavailable while its last state is draining.
 */
class FakeDaemon {
  serverRequests = 0;
  configRequests = 0;
  private readonly http: Server;

  constructor(private readonly states: ServerInfo["state"][]) {
    this.http = createServer((request, response) => {
      const json = { "content-type": "application/json" };
      if (request.method === "GET" && request.url === "/config") {
        this.configRequests++;
        if (this.states.at(-1) === "draining") {
          const problem = { code: "daemon_unavailable", detail: "the daemon is draining" };
          response.writeHead(503, json).end(JSON.stringify(problem));
        } else response.writeHead(200, json).end(JSON.stringify({ ok: true }));
        return;
      }
      if (request.method !== "GET" || request.url !== "/server") {
        response.writeHead(404).end("{}");
        return;
      }
      const state = this.states[Math.min(this.serverRequests, this.states.length - 1)]!;
      this.serverRequests++;
      response.writeHead(200, json).end(JSON.stringify(serverInfo(state)));
    });
  }

  /** Listen on loopback and name this daemon in `home`'s daemon.json. */
  async listen(home: string): Promise<void> {
    await new Promise<void>((resolve) => this.http.listen(0, "127.0.0.1", resolve));
    const { port } = this.http.address() as AddressInfo;
    const info = { pid: process.pid, port, token: "t", version: protocolVersion, instance_id: "fake" };
    writeFileSync(homePaths(home).discovery, JSON.stringify(info));
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(resolve));
  }
}

describe("connectWithServer and connectFor", () => {
  let home: string;
  let daemon: FakeDaemon | null = null;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "skein-cli-context-"));
  });

  afterEach(async () => {
    await daemon?.close();
    daemon = null;
    rmSync(home, { recursive: true, force: true });
  });

  function context(): CliContext {
    return { home, env: {}, cwd: home, terminal: processTerminal({}), stdin: process.stdin };
  }

  it("gives the answer of the one GET /server that found the daemon ready", async () => {
    daemon = new FakeDaemon(["ready"]);
    await daemon.listen(home);
    const { client, server } = await connectWithServer(context());
    client.close();
    expect(server.shell).toEqual(shell);
    expect(daemon.serverRequests).toBe(1);
  });

  it("gives the answer of the daemon that auto-start found when the first one was draining", async () => {
    daemon = new FakeDaemon(["draining", "ready"]);
    await daemon.listen(home);
    const { client, server } = await connectWithServer(context());
    client.close();
    expect(server.state).toBe("ready");
    expect(server.shell).toEqual(shell);
    // The check, then auto-start's own look at the daemon: nothing more.
    expect(daemon.serverRequests).toBe(2);
  });

  it("sends the command's first request with no GET /server before it", async () => {
    daemon = new FakeDaemon(["ready"]);
    await daemon.listen(home);
    const { client, answer } = await connectFor(context(), (reached) => reached.config());
    client.close();
    expect(answer).toEqual({ ok: true });
    expect(daemon.serverRequests).toBe(0);
    expect(daemon.configRequests).toBe(1);
  });

  it("says without auto-start that no daemon runs, or that the one that answers is shutting down", async () => {
    const noAutoStart = { autoStart: false };
    await expect(connectFor(context(), (reached) => reached.config(), noAutoStart)).rejects.toThrow(
      DaemonUnreachableError,
    );
    daemon = new FakeDaemon(["draining"]);
    await daemon.listen(home);
    const draining = connectFor(context(), (reached) => reached.config(), noAutoStart);
    await expect(draining).rejects.toThrow(DaemonUnreachableError);
    await expect(draining).rejects.toThrow(/shutting down/);
  });
});
