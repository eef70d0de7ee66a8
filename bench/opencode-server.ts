/**
 * An `opencode serve` process for bench/opencode.ts, from the binary SKEIN_BENCH_OPENCODE_BIN
 * names, in a temporary HOME and XDG directories of its own (so it reads and writes nothing of
 * the user's), configured with one OpenAI-compatible provider on the fake provider. Offline:
 * models.dev is not fetched (OPENCODE_DISABLE_MODELS_FETCH: the model list bundled in the binary
 * is used), and npm's registry is a closed loopback port, so the `@opencode-ai/plugin` package
 * opencode installs into each config directory in the background is not downloaded.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeProvider } from "../test/support/fake-provider/server.js";

/** The provider and model ids the config defines; prompts name no model, the config's default is used. */
const opencodeModel = { providerID: "fake", modelID: "bench-model" } as const;

/**
 * opencode's config: one provider on the fake provider through the bundled
 * `@ai-sdk/openai-compatible`, and the top-level keys of SKEIN_BENCH_OPENCODE_CONFIG (a JSON
 * object, e.g. `{"snapshot":false}`) over it, to see what one of its features costs.
 */
export function opencodeConfig(provider: FakeProvider): Record<string, unknown> {
  const extra = process.env.SKEIN_BENCH_OPENCODE_CONFIG;
  return {
    $schema: "https://opencode.ai/config.json",
    autoupdate: false,
    share: "disabled",
    provider: {
      [opencodeModel.providerID]: {
        npm: "@ai-sdk/openai-compatible",
        name: "Fake provider",
        options: { baseURL: provider.baseUrlWith("v1"), apiKey: "bench-key" },
        models: { [opencodeModel.modelID]: { name: "Bench model" } },
      },
    },
    model: `${opencodeModel.providerID}/${opencodeModel.modelID}`,
    ...(extra === undefined || extra === "" ? {} : (JSON.parse(extra) as Record<string, unknown>)),
  };
}

/** The environment of the server: this process's PATH, the temporary directories, offline switches. */
function serverEnv(root: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(root, "home"),
    XDG_CONFIG_HOME: join(root, "config"),
    XDG_DATA_HOME: join(root, "data"),
    XDG_STATE_HOME: join(root, "state"),
    XDG_CACHE_HOME: join(root, "cache"),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    // Port 9 (discard) on loopback is closed: the background install fails at once, offline.
    npm_config_registry: "http://127.0.0.1:9/",
  };
}

/**
 * A workspace as both servers get it: a git repository with one committed file (opencode
 * snapshots only a git project's files; Skein's workspace checkpoints run only for turns with tools).
 */
export function gitWorkspace(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "README.md"), "# bench workspace\n");
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@localhost", ...args], {
      cwd: dir,
      stdio: "ignore",
    });
  git("init", "-q", ".");
  git("add", "README.md");
  git("commit", "-q", "-m", "init");
}

/** Thrown when the server does not say where it listens. */
export class OpencodeStartError extends Error {
  constructor(
    readonly bin: string,
    readonly output: string,
  ) {
    super(`opencode serve (${bin}) did not start: ${output.slice(-2000)}`);
  }
}

/** A running `opencode serve`. */
export class OpencodeServer {
  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    readonly port: number,
    readonly root: string,
    readonly workspace: string,
  ) {}

  /** Start a server on a random loopback port in a new temporary root; resolves once it listens. */
  static async start(bin: string, provider: FakeProvider): Promise<OpencodeServer> {
    const root = mkdtempSync(join(tmpdir(), "skein-bench-opencode-"));
    for (const dir of ["home", "config/opencode", "data", "state", "cache"])
      mkdirSync(join(root, dir), { recursive: true });
    writeFileSync(
      join(root, "config/opencode/opencode.json"),
      `${JSON.stringify(opencodeConfig(provider), null, 2)}\n`,
    );
    const workspace = join(root, "workspace");
    gitWorkspace(workspace);
    const child = spawn(bin, ["serve", "--hostname", "127.0.0.1", "--port", "0"], {
      cwd: root,
      env: serverEnv(root),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new OpencodeStartError(bin, output)), 30_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const listening = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (listening !== null) {
          clearTimeout(timer);
          resolve(Number(listening[1]));
        }
      };
      child.stdout?.on("data", read);
      child.stderr?.on("data", read);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("exit", () => {
        clearTimeout(timer);
        reject(new OpencodeStartError(bin, output));
      });
    });
    // Keep draining its output so a chatty server never blocks on a full pipe.
    child.stdout?.resume();
    child.stderr?.resume();
    if (child.pid === undefined) throw new OpencodeStartError(bin, output);
    return new OpencodeServer(child, child.pid, port, root, workspace);
  }

  /** Stop the server (SIGTERM, then SIGKILL: `opencode serve` 1.18 outlives a SIGTERM) and remove its root. */
  async close(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = once(this.child, "exit");
      this.child.kill("SIGTERM");
      const timer = setTimeout(() => this.child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.root, { recursive: true, force: true });
  }
}
