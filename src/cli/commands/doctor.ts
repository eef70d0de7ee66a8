/**
 * `skein doctor`: checks what a working setup needs, one line each, with the fix for what fails:
 * Node.js, config.json, the daemon, each provider profile (a tiny request sent by the daemon,
 * with the daemon's environment), the command sandbox, and free disk space in the home.
 *
 * Boundary rule: reads and asks only; it changes nothing except starting the daemon the way
 * every command does (unless SKEIN_NO_AUTOSTART=1). Exit 1 when any check fails; warnings do
 * not fail.
 */
import { existsSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { ServerInfo } from "../../api/server.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { type ProviderConfig, ProviderConfigError, readProviderConfig } from "../../home/provider-config.js";
import { type CliContext, connectWithServer } from "../cli-context.js";
import { describeFailure } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { keyFix } from "./provider-config.js";

/** One check's verdict. */
interface DoctorCheck {
  name: string;
  status: "ok" | "warn" | "fail" | "skip";
  detail: string;
  /** What to do about a warning or a failure. */
  fix?: string;
}

/** The oldest Node.js the package supports (package.json's engines). */
const minimumNode: readonly [number, number] = [20, 19];
/** Free space in the home below which the disk check fails (100 MiB) or warns (1 GiB), with what to do. */
const diskLevels: ReadonlyArray<{ below: number; status: "fail" | "warn"; fix: string }> = [
  { below: 100 * 1024 ** 2, status: "fail", fix: "free some space: sessions cannot be saved" },
  { below: 1024 ** 3, status: "warn", fix: "free some space soon (sessions stop saving when it runs out)" },
];

/** Run every check and print them; exit 1 when any failed. */
export async function doctor(
  context: CliContext,
  options: { json?: boolean; timeout: number },
): Promise<ExitCode> {
  const checks: DoctorCheck[] = [nodeCheck(process.versions.node)];
  const config = configCheck(context.home);
  checks.push(config.check);
  let client: DaemonClient | null = null;
  try {
    try {
      const connected = await connectWithServer(context);
      client = connected.client;
      const server = connected.server;
      checks.push({
        name: "daemon",
        status: "ok",
        detail: `reachable (version ${server.version}, protocol ${server.protocol}, home ${context.home})`,
      });
      checks.push(...(await profileChecks(client, config.config, options.timeout * 1000)));
      checks.push(shellCheck(server));
    } catch (error) {
      const failure = describeFailure(error);
      checks.push({
        name: "daemon",
        status: "fail",
        detail: failure.message,
        fix: failure.hint ?? "see `skein daemon logs` and `skein daemon status`",
      });
      checks.push({ name: "providers", status: "skip", detail: "needs the daemon" });
      checks.push({ name: "sandbox", status: "skip", detail: "needs the daemon" });
    }
  } finally {
    client?.close();
  }
  checks.push(diskCheck(context.home));
  print(context, checks, options.json === true);
  return checks.some((check) => check.status === "fail") ? exitCodes.error : exitCodes.ok;
}

/** Node.js against the supported minimum. */
function nodeCheck(version: string): DoctorCheck {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const supported = major > minimumNode[0] || (major === minimumNode[0] && minor >= minimumNode[1]);
  return supported
    ? { name: "node", status: "ok", detail: `Node.js ${version}` }
    : {
        name: "node",
        status: "fail",
        detail: `Node.js ${version} is older than ${minimumNode.join(".")}`,
        fix: `install Node.js ${minimumNode.join(".")} or newer (e.g. from https://nodejs.org or with nvm)`,
      };
}

function configCheck(home: string): { check: DoctorCheck; config: ProviderConfig | null } {
  let config: ProviderConfig;
  try {
    config = readProviderConfig(home);
  } catch (error) {
    const path = error instanceof ProviderConfigError ? error.path : `${home}/config.json`;
    return {
      check: {
        name: "config",
        status: "fail",
        detail: error instanceof Error ? error.message : String(error),
        fix: `fix or remove ${path}`,
      },
      config: null,
    };
  }
  const names = Object.keys(config.providers);
  if (names.length === 0) {
    return {
      check: {
        name: "config",
        status: "fail",
        detail: "no provider profile is configured: every turn would fail",
        fix: "add one, e.g. `skein config add local --protocol chat_completions --base-url http://localhost:11434/v1 --model qwen3:8b`",
      },
      config,
    };
  }
  const active = config.active ?? "(none)";
  return {
    check: {
      name: "config",
      status: "ok",
      detail: `${names.length} profile${names.length === 1 ? "" : "s"} (${names.join(", ")}); active: ${active}`,
    },
    config,
  };
}

/** Each profile, tested by the daemon with one tiny request. */
async function profileChecks(
  client: DaemonClient,
  config: ProviderConfig | null,
  timeoutMs: number,
): Promise<DoctorCheck[]> {
  if (config === null) return [{ name: "providers", status: "skip", detail: "config.json is not valid" }];
  // On a cluster the daemon's profiles are the shared config's over config.json.
  const view = await client.config().catch(() => null);
  const names = Object.keys(view?.source === "database" ? view.providers : config.providers);
  const checks: DoctorCheck[] = [];
  for (const name of names) {
    const label = `profile ${name}`;
    try {
      const answer = await client.testProvider(name, { timeout_ms: timeoutMs });
      const where = `${answer.model} at ${answer.base_url}`;
      if (answer.result.ok) {
        const key = answer.api_key.source === null ? "" : `; key from ${answer.api_key.looked.at(-1)}`;
        checks.push({
          name: label,
          status: "ok",
          detail: `${where} answered in ${answer.elapsed_ms} ms${key}`,
        });
        continue;
      }
      const { kind, status, message } = answer.result;
      // A refused or missing key is fixed by storing one, unless config.json's own key came first.
      const keyProblem =
        kind === "config" || ((status === 401 || status === 403) && answer.api_key.source !== "config");
      const looked =
        keyProblem && kind !== "config"
          ? ` (the daemon used the key from ${answer.api_key.looked.at(-1)})`
          : "";
      checks.push({
        name: label,
        status: "fail",
        detail: `${where}: ${kind}${status === null ? "" : ` (HTTP ${status})`}: ${message}${looked}`,
        fix: keyProblem
          ? `\`${keyFix(name)}\` (the running daemon uses it from the next request)`
          : kind === "network" || kind === "timeout"
            ? "check that the provider's server runs and its base URL is right (`skein config list`)"
            : "check the model name and the key (`skein config list`, `skein config add` replaces a profile)",
      });
    } catch (error) {
      checks.push({ name: label, status: "fail", detail: describeFailure(error).message });
    }
  }
  return checks;
}

/** Whether commands can run, as the daemon decided at start. */
function shellCheck(server: ServerInfo): DoctorCheck {
  const shell = server.shell;
  if (shell === undefined) return { name: "sandbox", status: "skip", detail: "the daemon does not say" };
  const status = shell.mode === "off" ? "fail" : shell.hint === null ? "ok" : "warn";
  return {
    name: "sandbox",
    status,
    detail: shell.detail,
    ...(shell.hint === null ? {} : { fix: shell.hint }),
  };
}

/** Free space where the home (the database) lives. */
function diskCheck(home: string): DoctorCheck {
  let path = home;
  while (!existsSync(path) && dirname(path) !== path) path = dirname(path);
  try {
    const stats = statfsSync(path);
    const free = stats.bavail * stats.bsize;
    const shown = `${(free / 1024 ** 3).toFixed(1)} GiB free for ${home}`;
    const level = diskLevels.find((each) => free < each.below);
    if (level === undefined) return { name: "disk", status: "ok", detail: shown };
    return { name: "disk", status: level.status, detail: shown, fix: level.fix };
  } catch (error) {
    return { name: "disk", status: "warn", detail: `cannot tell free space: ${String(error)}` };
  }
}

function print(context: CliContext, checks: readonly DoctorCheck[], json: boolean): void {
  const out = context.terminal.out;
  if (json) {
    writeLine(out, JSON.stringify({ ok: !checks.some((check) => check.status === "fail"), checks }, null, 2));
    return;
  }
  const paint = out.paint;
  const marks = { ok: paint.green("✓"), warn: paint.yellow("!"), fail: paint.red("✗"), skip: paint.dim("-") };
  for (const check of checks) {
    writeLine(out, `${marks[check.status]} ${check.name}: ${check.detail}`);
    if (check.fix !== undefined) writeLine(out, `    fix: ${check.fix}`);
  }
  const failed = checks.filter((check) => check.status === "fail").length;
  const warned = checks.filter((check) => check.status === "warn").length;
  writeLine(
    out,
    failed === 0
      ? paint.green(`all good${warned === 0 ? "" : ` (${warned} warning${warned === 1 ? "" : "s"})`}`)
      : paint.red(`${failed} check${failed === 1 ? "" : "s"} failed`),
  );
}
