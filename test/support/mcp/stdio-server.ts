/**
 * A stdio MCP server built with the SDK, serving the test tools (test-tools.ts).
 * `--pid-file PATH` writes its pid there; with `--grandchild` it also starts a `sleep` in its
 * process group and writes that pid on the next line (to check that stopping ends the group).
 * It exits when stdin closes, as stdio servers should, unless `--slow-exit` is given: then it
 * ignores both the end of stdin and SIGTERM (a server that stops only when killed).
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { installTestTools } from "./test-tools.js";

const args = process.argv.slice(2);
const pidFile = args.includes("--pid-file") ? args[args.indexOf("--pid-file") + 1] : undefined;
const pids = [process.pid];
if (args.includes("--grandchild")) {
  const sleeper = spawn("sleep", ["300"], { stdio: "ignore" });
  pids.push(sleeper.pid ?? 0);
}
if (pidFile !== undefined) writeFileSync(pidFile, `${pids.join("\n")}\n`);

const server = new Server(
  { name: "skein-test-stdio", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);
installTestTools(server);
await server.connect(new StdioServerTransport());
if (args.includes("--slow-exit")) process.on("SIGTERM", () => undefined);
else process.stdin.on("end", () => process.exit(0));
process.stderr.write("test server ready\n");
