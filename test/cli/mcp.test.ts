// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${env:NAME} and ${home} are config placeholders
/**
 * `skein mcp …`: servers added to and removed from config.json next to the provider profiles
 * (which `skein config` keeps intact), and `list`/`test` answered by a real daemon that starts
 * a real stdio server.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpStatus } from "../../src/api/mcp-status.js";
import { testServerConfig } from "../support/mcp/servers.js";
import { CliSandbox } from "./support/cli-harness.js";

describe("skein mcp", () => {
  let cli: CliSandbox;
  const server = testServerConfig();

  beforeAll(() => {
    cli = new CliSandbox();
  });
  afterAll(async () => {
    await cli.cleanup();
  });

  function config(): Record<string, unknown> {
    return JSON.parse(readFileSync(join(cli.home, "config.json"), "utf8"));
  }

  it("adds stdio and remote servers as config.json entries, refusing bad ones with a usage error", async () => {
    const added = await cli.run([
      "mcp",
      "add",
      "test",
      "--timeout-ms",
      "5000",
      "--",
      server.command,
      ...server.args!,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('added MCP server "test"');
    const remote = await cli.run([
      "mcp",
      "add",
      "remote",
      "--url",
      "http://127.0.0.1:1/mcp",
      "--header",
      "Authorization: Bearer ${env:REMOTE_TOKEN}",
    ]);
    expect(remote.code, remote.stderr).toBe(0);
    expect(config().mcpServers).toEqual({
      test: { command: server.command, args: server.args, timeoutMs: 5000 },
      remote: { url: "http://127.0.0.1:1/mcp", headers: { Authorization: "Bearer ${env:REMOTE_TOKEN}" } },
    });

    const badName = await cli.run(["mcp", "add", "bad name", "--", "x"]);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toContain('MCP server name "bad name" must start with a letter');
    const neither = await cli.run(["mcp", "add", "empty"]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain("give a command to run (after --) or --url");
    const placeholder = await cli.run(["mcp", "add", "p", "--", "srv", "${home}"]);
    expect(placeholder.code).toBe(2);
    expect(placeholder.stderr).toContain("unknown placeholder ${home}");
    expect(Object.keys(config().mcpServers as object)).toEqual(["test", "remote"]);
  });

  it("keeps the MCP servers when provider profiles are added and removed", async () => {
    const add = await cli.run(["config", "add", "local", "--protocol", "chat_completions", "--model", "m"]);
    expect(add.code, add.stderr).toBe(0);
    const remove = await cli.run(["config", "remove", "local"]);
    expect(remove.code, remove.stderr).toBe(0);
    expect(Object.keys(config().mcpServers as object)).toEqual(["test", "remote"]);
  });

  it("tests a server through the daemon, listing its tools, and reports one that cannot be reached", async () => {
    const tested = await cli.run(["mcp", "test", "test"], { timeoutMs: 60_000 });
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout).toMatch(/^ok {2}test: ready in \d+ ms \(pid \d+\), \d+ tools$/m);
    expect(tested.stdout).toMatch(/^ {2}test__echo {2}Echo the text back\.$/m);
    expect(tested.stdout).toMatch(
      /test__lookup_item_v2_by-id_[0-9a-f]{8} \(on the server: lookup\.item\/v2:by-id\)/,
    );

    const unreachable = await cli.run(["mcp", "test", "remote"], { timeoutMs: 60_000 });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^failed {2}remote: .*REMOTE_TOKEN.*not set in the daemon's environment/m,
    );
    const unknown = await cli.run(["mcp", "test", "nope"]);
    expect(unknown.code).toBe(4);
  });

  it("lists servers with their state, and removes one", async () => {
    const listed = await cli.run(["mcp", "list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^test {2}stdio {2}.*stdio-server\.ts {2}ready {2}\d+ tools$/m);
    expect(listed.stdout).toMatch(/^remote {2}http {2}http:\/\/127\.0\.0\.1:1\/mcp {2}failed {2}0 tools$/m);
    expect(listed.stdout).toMatch(
      /^ {4}last error \(.*\): MCP server "remote" reads \$\{env:REMOTE_TOKEN\}/m,
    );
    const json = JSON.parse((await cli.run(["mcp", "list", "--json"])).stdout) as McpStatus;
    expect(json.servers.map((entry) => entry.name)).toEqual(["test", "remote"]);

    const removed = await cli.run(["mcp", "remove", "remote"]);
    expect(removed.code).toBe(0);
    expect(Object.keys(config().mcpServers as object)).toEqual(["test"]);
    expect((await cli.run(["mcp", "rm", "remote"])).code).toBe(4);
    const after = JSON.parse((await cli.run(["mcp", "list", "--json"])).stdout) as McpStatus;
    expect(after.servers.map((entry) => entry.name)).toEqual(["test"]);
  });
});
