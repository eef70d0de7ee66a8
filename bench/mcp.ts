// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} is a config placeholder
/**
 * `npm run bench -- mcp`: what an MCP tool costs, each figure with a baseline from the same run.
 *
 * - One call through the daemon's MCP client (McpManager → ToolDefinition → process-group stdio
 *   transport → server → result mapping), against the same call made directly with the SDK's
 *   own client and stdio transport on another instance of the same server: p50 and p99 over
 *   1,000 sequential calls of `echo` on the SDK-built test server.
 * - One tool round of a real daemon turn (model asks for the tool, the call is logged, run, its
 *   result logged, the model asked again), measured between the fake provider's requests: with
 *   the MCP `echo` tool, against the same round with the built-in `read_file` (so the difference
 *   is what MCP adds inside a turn), over 500 rounds.
 * - The server's start-up, paid once per daemon (or per workspace): spawn, `initialize` and
 *   `tools/list` of the npm filesystem server and of the test server (run through tsx), through
 *   the manager, against the SDK's own client doing the same.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { v7 as uuidv7 } from "uuid";
import type { McpServersConfig, McpStdioServerConfig } from "../src/home/mcp-config.js";
import { McpManager } from "../src/mcp/mcp-manager.js";
import type { Tool } from "../src/model/tools.js";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text, toolCalls } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { filesystemServerConfig, testServerConfig } from "../test/support/mcp/servers.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";

const calls = 1000;
const rounds = 500;
const roundsPerTurn = 50;
const startRuns = 5;

/** Run every MCP figure. */
export async function run(): Promise<void> {
  const figures: Figure[] = [];
  figures.push(...(await callLatency()));
  figures.push(...(await turnRounds()));
  figures.push(...(await startUp("filesystem", filesystemServerConfig())));
  figures.push(...(await startUp("test server (tsx)", testServerConfig())));
  writeReport("mcp", figures);
}

function manager(servers: McpServersConfig): McpManager {
  return new McpManager({
    config: () => ({ servers, error: null }),
    env: process.env,
    sandbox: null,
    clientVersion: "bench",
    logger: { info: () => {}, warn: () => {} },
    now: () => Date.now(),
  });
}

async function sdkClient(config: McpStdioServerConfig, workspace: string): Promise<Client> {
  const client = new Client({ name: "bench", version: "0" });
  const args = (config.args ?? []).map((arg) => arg.replace("${workspace}", workspace));
  await client.connect(new StdioClientTransport({ command: config.command, args, stderr: "ignore" }));
  return client;
}

async function timed(count: number, call: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return samples.sort((a, b) => a - b);
}

async function callLatency(): Promise<Figure[]> {
  const mcp = manager({ test: testServerConfig() });
  const direct = await sdkClient(testServerConfig(), tmpdir());
  try {
    const [definition] = (await mcp.toolsFor(["test"], tmpdir())).filter(
      (entry) => entry().meta.name === "test__echo",
    );
    const tool: Tool = definition!().tool;
    const signal = new AbortController().signal;
    const viaSkein = () => tool.execute('{"text":"ping"}', { call_id: "bench", signal });
    const viaSdk = () => direct.callTool({ name: "echo", arguments: { text: "ping" } });
    // Warm both paths (JIT, the servers' own start) before anything is timed.
    await timed(200, viaSkein);
    await timed(200, viaSdk);
    const skein = await timed(calls, viaSkein);
    const sdk = await timed(calls, viaSdk);
    const note = `${calls} sequential echo calls; baseline: the SDK's Client + StdioClientTransport on the same server`;
    return [
      figure("mcp_call_p50", quantile(skein, 0.5), "ms", quantile(sdk, 0.5), note),
      figure("mcp_call_p99", quantile(skein, 0.99), "ms", quantile(sdk, 0.99), note),
    ];
  } finally {
    await mcp.stop();
    await direct.close();
  }
}

async function turnRounds(): Promise<Figure[]> {
  const provider = await FakeProvider.start();
  const app = await DaemonHarness.start({
    providers: {
      bench: {
        protocol: "chat_completions",
        baseUrl: provider.baseUrlWith("v1"),
        apiKey: "k",
        model: "bench-model",
      },
    },
    mcpServers: { test: testServerConfig() },
    env: { SKEIN_LOG_LEVEL: "warn" },
  });
  try {
    writeFileSync(join(app.workspace, "tiny.txt"), "ping\n");
    const measure = async (tool: string, args: object, count: number): Promise<number[]> => {
      const arrivals: number[] = [];
      const samples: number[] = [];
      for (let done = 0; done < count; done += roundsPerTurn) {
        const sessionId = await app.createSession();
        arrivals.length = 0;
        let issued = 0;
        provider.script = () => {
          arrivals.push(performance.now());
          issued++;
          return issued <= roundsPerTurn
            ? toolCalls([{ name: tool, args, id: `call_${uuidv7()}` }])
            : text("done");
        };
        await app.turn(sessionId, "go");
        for (let index = 1; index < arrivals.length; index++)
          samples.push(arrivals[index]! - arrivals[index - 1]!);
      }
      return samples.sort((a, b) => a - b);
    };
    await measure("test__echo", { text: "ping" }, roundsPerTurn);
    await measure("read_file", { path: "tiny.txt" }, roundsPerTurn);
    const mcpRounds = await measure("test__echo", { text: "ping" }, rounds);
    const builtinRounds = await measure("read_file", { path: "tiny.txt" }, rounds);
    const note = `${rounds} tool rounds of daemon turns (a fake-provider request, the call and its result logged durably); baseline: the same round with the built-in read_file`;
    return [
      figure("turn_round_mcp_p50", quantile(mcpRounds, 0.5), "ms", quantile(builtinRounds, 0.5), note),
      figure("turn_round_mcp_p99", quantile(mcpRounds, 0.99), "ms", quantile(builtinRounds, 0.99), note),
    ];
  } finally {
    await app.close();
    await provider.close();
  }
}

async function startUp(label: string, config: McpStdioServerConfig): Promise<Figure[]> {
  const workspace = tmpdir();
  const viaSkein: number[] = [];
  const viaSdk: number[] = [];
  for (let run = 0; run < startRuns; run++) {
    const mcp = manager({ server: config });
    let started = performance.now();
    const tools = await mcp.toolsFor(["server"], workspace);
    viaSkein.push(performance.now() - started);
    await mcp.stop();
    if (tools.length === 0) throw new Error(`${label} did not start: ${JSON.stringify(mcp.status())}`);
    started = performance.now();
    const client = await sdkClient(config, workspace);
    await client.listTools();
    viaSdk.push(performance.now() - started);
    await client.close();
  }
  viaSkein.sort((a, b) => a - b);
  viaSdk.sort((a, b) => a - b);
  return [
    figure(
      `server_start_${label.split(" ")[0]}_median`,
      quantile(viaSkein, 0.5),
      "ms",
      quantile(viaSdk, 0.5),
      `${label}: spawn, initialize and tools/list, median of ${startRuns}, paid once per daemon (or workspace); baseline: the SDK's own client`,
    ),
  ];
}
