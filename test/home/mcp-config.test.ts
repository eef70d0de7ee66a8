// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} and ${env:NAME} are config placeholders
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  McpConfigError,
  type McpServersConfig,
  parseMcpServers,
  resolveServer,
  transportOf,
  usesWorkspace,
} from "../../src/home/mcp-config.js";

describe("the mcpServers section", () => {
  it("accepts the shape other agents use, as written", () => {
    const section: McpServersConfig = {
      fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${workspace}"] },
      github: { type: "stdio", command: "gh-mcp", env: { GITHUB_TOKEN: "${env:GITHUB_TOKEN}" }, cwd: "/srv" },
      remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } },
      typed: {
        type: "streamable-http",
        url: "http://127.0.0.1:9000/mcp",
        timeoutMs: 5000,
        startupTimeoutMs: 2000,
      },
    };
    expect(parseMcpServers(structuredClone(section))).toEqual(section);
    expect(transportOf(section.fs!)).toBe("stdio");
    expect(transportOf(section.remote!)).toBe("http");
    expect(usesWorkspace(section.fs!)).toBe(true);
    expect(usesWorkspace(section.github!)).toBe(false);
  });

  it.each([
    [[], '"mcpServers" must be an object'],
    [{ "bad name": { command: "x" } }, 'MCP server name "bad name" must start with a letter'],
    [{ a__b: { command: "x" } }, 'MCP server name "a__b"'],
    [{ s: { command: "x", url: "http://h" } }, 'MCP server "s": give either "command"'],
    [{ s: {} }, 'MCP server "s": give either "command"'],
    [{ s: { command: "" } }, '"command" must be a non-empty string'],
    [{ s: { command: "x", args: "a b" } }, '"args" must be an array of strings'],
    [{ s: { command: "x", env: { "A-B": "1" } } }, 'invalid variable name "A-B"'],
    [{ s: { command: "x", cwd: "relative" } }, '"cwd" must be an absolute path'],
    [{ s: { command: "x", args: ["${home}"] } }, "unknown placeholder ${home}"],
    [{ s: { command: "x", shell: true } }, 'unknown field "shell"'],
    [{ s: { command: "x", type: "http" } }, '"type" must be "stdio"'],
    [{ s: { url: "ftp://h" } }, '"url" must be http:// or https://'],
    [{ s: { url: "not a url" } }, "is not a valid URL"],
    [{ s: { url: "http://h", type: "sse" } }, "SSE-only servers are not supported"],
    [{ s: { url: "http://h", headers: { "bad header": "x" } } }, 'invalid header name "bad header"'],
    [{ s: { command: "x", env: { A: 1 } } }, '"env" must be an object of strings'],
    [{ s: { url: "http://h", headers: ["x"] } }, '"headers" must be an object of strings'],
    [
      { s: { url: "http://h", headers: { A: "${home}" } } },
      '"headers"."A" has an unknown placeholder ${home}',
    ],
    [{ s: { command: "x", timeoutMs: 0 } }, '"timeoutMs" must be a whole number'],
    [{ s: { command: "x", startupTimeoutMs: 1.5 } }, '"startupTimeoutMs" must be a whole number'],
  ])("refuses %j, saying why", (section, message) => {
    expect(() => parseMcpServers(section)).toThrow(McpConfigError);
    expect(() => parseMcpServers(section)).toThrow(message);
  });

  it("expands ${workspace} and ${env:NAME} when a server starts, and fills in the limits", () => {
    const [config] = Object.values(
      parseMcpServers({
        fs: {
          command: "node",
          args: ["server.js", "${workspace}/src"],
          env: { KEY: "k=${env:KEY}" },
          cwd: "${workspace}",
        },
      }),
    );
    expect(resolveServer("fs", config!, { workspace: "/w", env: { KEY: "1" } })).toEqual({
      transport: "stdio",
      name: "fs",
      command: "node",
      args: ["server.js", "/w/src"],
      env: { KEY: "k=1" },
      cwd: "/w",
      sandbox: true,
      network: true,
      workspace: "/w",
      timeoutMs: 60_000,
      startupTimeoutMs: 30_000,
    });
    const unconfined = parseMcpServers({ u: { command: "node", sandbox: false, network: false } }).u!;
    expect(resolveServer("u", unconfined, { workspace: "/w", env: {} })).toMatchObject({
      sandbox: false,
      network: false,
      workspace: null,
    });
    expect(() => parseMcpServers({ u: { command: "node", sandbox: "no" } })).toThrow(
      '"sandbox" must be true or false',
    );
    expect(() => resolveServer("fs", config!, { workspace: null, env: { KEY: "1" } })).toThrow(
      "give a workspace",
    );
    expect(() => resolveServer("fs", config!, { workspace: "/w", env: {} })).toThrow(
      'reads ${env:KEY} in "env"."KEY", which is not set in the daemon\'s environment',
    );
    const remote = parseMcpServers({ r: { url: "${env:URL}", headers: { A: "${env:URL}" } } }).r!;
    expect(resolveServer("r", remote, { workspace: null, env: { URL: "https://h/mcp" } })).toMatchObject({
      transport: "http",
      headers: { A: "https://h/mcp" },
    });
    expect(() => resolveServer("r", remote, { workspace: null, env: { URL: "file:///x" } })).toThrow(
      '"url" must be http:// or https://',
    );
  });

  it("never fails on any JSON with anything but McpConfigError, and what it accepts it accepts again unchanged", () => {
    const entry = fc.record(
      {
        command: fc.oneof(fc.string(), fc.constant("node")),
        url: fc.oneof(fc.string(), fc.constant("http://127.0.0.1:1/mcp")),
        args: fc.oneof(fc.array(fc.string()), fc.jsonValue()),
        env: fc.oneof(fc.dictionary(fc.string(), fc.string()), fc.jsonValue()),
        cwd: fc.oneof(fc.constant("/tmp"), fc.constant("${workspace}"), fc.string()),
        headers: fc.dictionary(fc.string(), fc.string()),
        timeoutMs: fc.oneof(fc.integer(), fc.double()),
        type: fc.constantFrom("stdio", "http", "sse"),
      },
      { requiredKeys: [] },
    );
    const section = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.string(), entry),
      fc.dictionary(fc.constantFrom("a", "b-1", "c_2"), entry),
    );
    fc.assert(
      fc.property(section, (value) => {
        let parsed: ReturnType<typeof parseMcpServers>;
        try {
          parsed = parseMcpServers(value);
        } catch (error) {
          expect(error).toBeInstanceOf(McpConfigError);
          return;
        }
        expect(parseMcpServers(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
      }),
      { numRuns: 3000 },
    );
  });
});
