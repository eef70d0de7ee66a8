/**
 * The package installs the way a user installs it: `npm pack`, then `npm install -g` of the
 * tarball into a fresh prefix, then the installed `skein` runs from another folder, against the
 * fake provider. Dependencies come from the npm cache when it has them (`--prefer-offline`),
 * else from the registry; better-sqlite3 is compiled by its install script, which npm runs for a
 * global install only when allowed (`--allow-scripts=better-sqlite3`, as the README says). Slow:
 * the compile alone takes a minute or two.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";

const run = promisify(execFile);
const repository = resolve(".");
const version = (JSON.parse(readFileSync(join(repository, "package.json"), "utf8")) as { version: string })
  .version;

describe("installing the package with npm", () => {
  const root = mkdtempSync(join(tmpdir(), "skein-install-"));
  const prefix = join(root, "prefix");
  const elsewhere = join(root, "some-project");
  const env = {
    PATH: `${join(prefix, "bin")}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: process.env.HOME ?? root,
    SKEIN_HOME: join(root, "skein-home"),
    NO_COLOR: "1",
  };
  let provider: FakeProvider;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    mkdirSync(elsewhere, { recursive: true });
    // dist/ is built (the test suite needs it); the tarball takes it as it is.
    await run("npm", ["pack", "--ignore-scripts", "--pack-destination", root], { cwd: repository });
    const tarball = readdirSync(root).find((name) => name.startsWith("skein-") && name.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`npm pack wrote no tarball into ${root}`);
    await run(
      "npm",
      [
        "install",
        "-g",
        join(root, tarball),
        "--prefix",
        prefix,
        "--prefer-offline",
        "--allow-scripts=better-sqlite3",
        "--no-audit",
        "--no-fund",
      ],
      { cwd: root, timeout: 540_000, maxBuffer: 16 * 1024 * 1024 },
    );
  }, 600_000);

  afterAll(async () => {
    await run("skein", ["daemon", "stop"], { cwd: elsewhere, env }).catch(() => undefined);
    await provider.close();
    rmSync(root, { recursive: true, force: true });
    // The installed tree is large and the daemon stop waits for its exit: slow on a loaded machine.
  }, 120_000);

  it("puts `skein` on the prefix's PATH, and it prints its version from any folder", async () => {
    const { stdout } = await run("skein", ["--version"], { cwd: elsewhere, env });
    expect(stdout.trim()).toBe(version);
  });

  it("runs a real turn from another folder, with the daemon it starts", async () => {
    provider.script = () => text("Installed and answering.");
    const where = ["--base-url", `${provider.baseUrl}/v1`, "--model", "fake-model", "--api-key", "k"];
    await run("skein", ["config", "add", "fake", "--protocol", "chat_completions", ...where], {
      cwd: elsewhere,
      env,
    });
    const { stdout, stderr } = await run("skein", ["run", "hello from some project"], {
      cwd: elsewhere,
      env,
      timeout: 60_000,
    });
    expect(stdout).toBe("Installed and answering.\n");
    expect(stderr).toContain("started the Skein daemon");
    const sessions = JSON.parse(
      (await run("skein", ["sessions", "--json"], { cwd: elsewhere, env })).stdout,
    ) as Array<{
      workspace: string;
    }>;
    expect(sessions[0]?.workspace).toBe(elsewhere);
  }, 90_000);
});
