import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { protocolVersion } from "../../src/api/protocol.js";
import type { ServerInfo } from "../../src/api/server.js";
import { type CliContext, connectWithServer } from "../../src/cli/cli-context.js";
import { processTerminal } from "../../src/cli/render/terminal.js";
import { homePaths } from "../../src/home/home.js";

const shell = { mode: "off", network: false, detail: "no bubblewrap", hint: "install it" } as const;

function serverInfo(state: ServerInfo["state"]): ServerInfo {
  return { instance_id: "fake", protocol: protocolVersion, state, capabilities: {}, version: "0.0.0", shell };
}

/** A daemon that only answers `GET /server`, with the states given in turn (the last one repeats). */
class FakeDaemon {
  serverRequests = 0;
  private readonly http: Server;

  constructor(private readonly states: ServerInfo["state"][]) {
    this.http = createServer((request, response) => {
      if (request.method !== "GET" || request.url !== "/server") {
        response.writeHead(404).end("{}");
        return;
      }
      const state = this.states[Math.min(this.serverRequests, this.states.length - 1)]!;
      this.serverRequests++;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(serverInfo(state)));
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

describe("connectWithServer", () => {
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
});
