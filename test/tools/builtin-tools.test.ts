import { mkdirSync, symlinkSync, unlinkSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import formatsPlugin from "ajv-formats";
import { describe, expect, it } from "vitest";
import { DEFAULT_BWRAP_PATH, probeBwrap } from "../../src/tools/bubblewrap.js";
import { builtinToolKit, builtinTools, WorkspaceConfigurationError } from "../../src/tools/builtin-tools.js";
import {
  chooseShell,
  describeShellChoice,
  ShellConfigurationError,
  UNCONFINED_SHELL_ENV,
} from "../../src/tools/shell-mode.js";
import { socketFilterFor } from "../../src/tools/socket-filter.js";
import { toolKind } from "../../src/tools/tool-kind.js";
import { callTool, expectToolError, makeTempDirectory, requireBwrap } from "./tool-harness.js";

const missingBwrap = "/nonexistent/skein-test/bwrap";
const allowUnconfined = { [UNCONFINED_SHELL_ENV]: "1" };
const names = (workspace: string, options: Parameters<typeof builtinTools>[1]) =>
  builtinTools(workspace, options).map((definition) => definition().meta.name);

describe("chooseShell", () => {
  it("sandboxes commands when bwrap works", () => {
    requireBwrap();
    expect(chooseShell({ env: {} })).toEqual({
      mode: "sandboxed",
      bwrapPath: DEFAULT_BWRAP_PATH,
      socketFilter: socketFilterFor(),
    });
    expect(chooseShell({ shell: "sandboxed", env: allowUnconfined })).toEqual({
      mode: "sandboxed",
      bwrapPath: DEFAULT_BWRAP_PATH,
      socketFilter: socketFilterFor(),
    });
  });

  it("gives sandboxed commands an outbound-only network only when the operator set SKEIN_SANDBOX_NETWORK=1", () => {
    requireBwrap();
    const helper = {
      slirp4netns: "/usr/bin/slirp4netns",
      nsenter: "/usr/bin/nsenter",
      unshare: "/usr/bin/unshare",
      ip: "/usr/sbin/ip",
    };
    const probeNetwork = () => ({ usable: true as const, helper });
    expect(chooseShell({ env: { SKEIN_SANDBOX_NETWORK: "1" }, probeNetwork })).toMatchObject({
      mode: "sandboxed",
      network: { kind: "outbound", helper },
    });
    expect(chooseShell({ env: { SKEIN_SANDBOX_NETWORK: "yes" }, probeNetwork })).not.toHaveProperty(
      "network",
    );
    expect(
      describeShellChoice(chooseShell({ env: { SKEIN_SANDBOX_NETWORK: "1" }, probeNetwork })),
    ).toMatchObject({ warning: false, text: expect.stringContaining("it has an outbound-only network") });
  });

  it("offers no shell when sandboxing is asked for and bwrap is missing, saying why", () => {
    const choice = chooseShell({ shell: "sandboxed", bwrapPath: missingBwrap, env: allowUnconfined });
    expect(choice.mode).toBe("off");
    expect(choice.mode === "off" && choice.reason).toContain(missingBwrap);
    expect(probeBwrap(missingBwrap).usable).toBe(false);
  });

  it("never falls back to an unconfined shell unless the operator set the variable", () => {
    const choice = chooseShell({ bwrapPath: missingBwrap, env: {} });
    expect(choice.mode).toBe("off");
    expect(choice.mode === "off" && choice.reason).toContain(`${UNCONFINED_SHELL_ENV}=1`);
    // And it says how to get bubblewrap.
    expect(choice.mode === "off" && choice.reason).toContain("apt install bubblewrap");
    expect(chooseShell({ bwrapPath: missingBwrap, env: { [UNCONFINED_SHELL_ENV]: "true" } }).mode).toBe(
      "off",
    );
    expect(chooseShell({ bwrapPath: missingBwrap, env: allowUnconfined })).toEqual({ mode: "unconfined" });
  });

  it("refuses an explicit unconfined shell without the operator's variable", () => {
    expect(() => chooseShell({ shell: "unconfined", env: {} })).toThrow(ShellConfigurationError);
    expect(() => chooseShell({ shell: "unconfined", env: {} })).toThrow(/SKEIN_UNCONFINED_SHELL=1/);
    expect(chooseShell({ shell: "unconfined", env: allowUnconfined })).toEqual({ mode: "unconfined" });
  });

  it("turns the shell off when asked", () => {
    expect(chooseShell({ shell: "off", env: allowUnconfined }).mode).toBe("off");
  });
});

/** The built-in tools, in order, when no shell is offered (run_command comes last when one is). */
const toolsWithoutAShell = [
  "read_file",
  "write_file",
  "edit_file",
  "apply_patch",
  "list_files",
  "grep",
  "glob",
  "todo_write",
  "web_fetch",
];

describe("builtinTools", () => {
  it("gives the file tools and a sandboxed run_command", async () => {
    requireBwrap();
    const workspace = await makeTempDirectory();
    try {
      expect(names(workspace.root, { env: {} })).toEqual([...toolsWithoutAShell, "run_command"]);
      const tools = builtinTools(workspace.root, { env: {} });
      const runCommand = tools.find((definition) => definition().meta.name === "run_command");
      if (runCommand === undefined) throw new Error("run_command is missing");
      expect(runCommand().meta.description).toContain("Sandboxed");
      expect(await callTool(runCommand, { command: "echo hi" })).toBe("exit code: 0\nhi\n");
    } finally {
      await workspace.remove();
    }
  });

  it("leaves run_command out when no shell is offered", () => {
    expect(names("/srv/ws", { shell: "off" })).toEqual(toolsWithoutAShell);
    expect(names("/srv/ws", { bwrapPath: missingBwrap, env: {} })).not.toContain("run_command");
  });

  it("describes every tool with a strict JSON Schema object", () => {
    for (const definition of builtinTools("/srv/ws", { shell: "unconfined", env: allowUnconfined })) {
      const { meta } = definition();
      expect(meta.description.length).toBeGreaterThan(20);
      expect(meta.input_schema).toMatchObject({ type: "object", additionalProperties: false });
    }
  });

  it("gives every tool a schema valid under the 2020-12 meta-schema that compiles in strict mode", () => {
    // The daemon compiles a tool's schema at its first call, without the meta-schema check.
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    formatsPlugin.default(ajv);
    const definitions = builtinTools("/srv/ws", { shell: "unconfined", env: allowUnconfined });
    expect(definitions.length).toBeGreaterThanOrEqual(10);
    for (const definition of definitions) {
      const { name, input_schema } = definition().meta;
      expect(ajv.validateSchema(input_schema), `${name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      expect(() => ajv.compile(input_schema), name).not.toThrow();
    }
  });

  it("refuses a relative workspace or the filesystem root", () => {
    expect(() => builtinTools("relative/ws", { shell: "off" })).toThrow(WorkspaceConfigurationError);
    expect(() => builtinTools("/", { shell: "off" })).toThrow(WorkspaceConfigurationError);
    expect(() => builtinTools("/srv/..", { shell: "off" })).toThrow(WorkspaceConfigurationError);
  });

  it("gives each tool the same meta on every call of one kit, and a new one when its description changes", () => {
    const kit = builtinToolKit({ shell: "off" });
    const metas = (workspace: string) => kit.toolsFor(workspace).map((definition) => definition().meta);
    const first = metas("/srv/ws");
    expect(metas("/srv/ws")).toEqual(first);
    const second = metas("/srv/ws");
    for (const [index, meta] of second.entries()) expect(meta).toBe(first[index]);
    const kind = toolKind("echo", { type: "object" });
    const run = async () => "ok";
    const before = kind("Echoes", run)().meta;
    expect(kind("Echoes", run)().meta).toBe(before);
    const after = kind("Echoes its input", run)().meta;
    expect(after).not.toBe(before);
    expect(after.description).toBe("Echoes its input");
  });

  it("checks where a workspace points on every call of one kit: a link moved into a hidden path is refused", async () => {
    const root = await makeTempDirectory();
    try {
      const secret = path.join(root.root, "home");
      const elsewhere = path.join(root.root, "elsewhere");
      mkdirSync(secret);
      mkdirSync(elsewhere);
      const link = path.join(root.root, "ws");
      symlinkSync(elsewhere, link);
      const kit = builtinToolKit({ hiddenPaths: [secret], shell: "off" });
      expect(kit.toolsFor(link).map((definition) => definition().meta.name)).toContain("read_file");
      unlinkSync(link);
      symlinkSync(secret, link);
      expect(() => kit.toolsFor(link)).toThrow(WorkspaceConfigurationError);
      expect(() => kit.toolsFor("relative/ws")).toThrow(WorkspaceConfigurationError);
    } finally {
      await root.remove();
    }
  });

  it("rejects arguments that are not a JSON object as invalid_argument, for every tool", async () => {
    for (const definition of builtinTools("/srv/ws", { shell: "unconfined", env: allowUnconfined })) {
      await expectToolError(callTool(definition, [1, 2]), "invalid_argument", /must be object/);
      await expectToolError(callTool(definition, "text"), "invalid_argument", /must be object/);
    }
  });
});
