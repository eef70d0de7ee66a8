import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BWRAP_PATH } from "../../src/tools/bubblewrap.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { probeNetworkHelper } from "../../src/tools/network-helper.js";
import { OUTPUT_LIMIT_BYTES } from "../../src/tools/output-limit.js";
import { runCommandTool } from "../../src/tools/run-command.js";
import { chooseShell, describeShellChoice, type OfferedShell } from "../../src/tools/shell-mode.js";
import { socketFilterFor } from "../../src/tools/socket-filter.js";
import { eventually } from "../support/eventually.js";
import {
  canMakePeer,
  type HostListener,
  hostAddresses,
  listenOnEveryAddress,
  type PeerListener,
  startPeerListener,
} from "../support/host-listeners.js";
import { type ProbeReport, type ProbeRequest, writeProbeScript } from "../support/network-probe.mjs";
import {
  callTool,
  expectToolError,
  isErrorOutput,
  outputText,
  requireBwrap,
  withTempDirectory,
} from "./tool-harness.js";

const sandboxed: OfferedShell = {
  mode: "sandboxed",
  bwrapPath: DEFAULT_BWRAP_PATH,
  socketFilter: socketFilterFor(),
};
const unconfined: OfferedShell = { mode: "unconfined" };

const workspace = withTempDirectory();
const run = (input: unknown, shell: OfferedShell = sandboxed, signal?: AbortSignal) =>
  callTool(runCommandTool(workspace.root, shell), input, signal);

/** A unique `sleep` argument, so the test can find exactly its own processes in /proc. */
const uniqueSleep = () => `30.${Math.floor(Math.random() * 1e9)}`;

/** Host pids of live processes whose command line is exactly `sleep <seconds>`. */
async function sleepers(seconds: string): Promise<number[]> {
  const found: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const commandLine = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    const status = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    // Zombies are already dead; they only wait to be reaped.
    if (commandLine === `sleep\0${seconds}\0` && !/\) Z /.test(status)) found.push(Number(entry));
  }
  return found;
}

beforeAll(() => {
  requireBwrap();
});

describe("run_command in the sandbox", () => {
  it("runs in the workspace and reports the exit code with stdout and stderr", async () => {
    const output = await run({ command: "pwd; echo out; echo err >&2; exit 3" });
    expect(output).toBe(`exit code: 3\n${workspace.root}\nout\nerr\n`);
  });

  it("says when there is no output", async () => {
    expect(await run({ command: "true" })).toBe("exit code: 0\n(no output)");
  });

  it("can write files in the workspace", async () => {
    expect(await run({ command: "mkdir -p out && echo made > out/file" })).toBe("exit code: 0\n(no output)");
    expect(await readFile(path.join(workspace.root, "out/file"), "utf8")).toBe("made\n");
  });

  it("gives the command a clean minimal environment", async () => {
    process.env.SKEIN_TEST_SECRET = "do-not-leak";
    try {
      const output = outputText(await run({ command: "env | sort" }));
      expect(output).toContain(`HOME=${workspace.root}\n`);
      expect(output).toContain("LANG=C.UTF-8\n");
      expect(output).toMatch(/^PATH=\/usr\/local\/sbin:/m);
      expect(output).not.toContain("do-not-leak");
      const names = output
        .split("\n")
        .slice(1)
        .filter((line) => line.includes("="))
        .map((line) => line.split("=")[0]);
      // sh itself adds PWD (and OLDPWD); nothing else may appear.
      for (const name of names) expect(["HOME", "LANG", "PATH", "PWD", "OLDPWD"]).toContain(name);
    } finally {
      delete process.env.SKEIN_TEST_SECRET;
    }
  });

  it("cannot write outside the workspace, even as root by remounting", async () => {
    const marker = `/etc/skein-test-${randomBytes(4).toString("hex")}`;
    const output = outputText(
      await run({
        command: `echo x > ${marker}; echo x > /var/tmp/skein-escape; mount -o remount,rw,bind / ; echo x > ${marker}; exit 0`,
      }),
    );
    expect(output).toMatch(/Read-only file system|Permission denied/);
    await expect(access(marker)).rejects.toThrow();
    await expect(access("/var/tmp/skein-escape")).rejects.toThrow();
  });

  it("hides secret directories behind an empty tmpfs, and refuses to run in a workspace inside one", async () => {
    // Outside /tmp: the sandbox's private /tmp would hide a directory there anyway.
    const secrets = await mkdtemp(path.join("/var/tmp", "skein-secrets-"));
    try {
      await writeFile(path.join(secrets, "daemon.json"), '{"token":"secret"}');
      const hidden = resolveHiddenPaths([secrets]);
      expect(
        await callTool(runCommandTool(workspace.root, sandboxed, hidden), {
          command: `cat ${secrets}/daemon.json`,
        }),
      ).toMatch(/^exit code: 1\n.*No such file/s);
      // Without hiding, the same command reads the secret, so the assertion above can fail.
      expect(await run({ command: `cat ${secrets}/daemon.json` })).toBe('exit code: 0\n{"token":"secret"}');
      const inner = path.join(secrets, "workspace");
      await mkdir(inner);
      await expectToolError(
        callTool(runCommandTool(inner, sandboxed, hidden), { command: "true" }),
        "execution_failed",
        /lies inside .* hidden from the agent/,
      );
    } finally {
      await rm(secrets, { recursive: true, force: true });
    }
  });

  it("gives the command a private /tmp that does not reach the host's /tmp", async () => {
    const name = `/tmp/skein-sandbox-${randomBytes(4).toString("hex")}`;
    expect(await run({ command: `echo x > ${name} && cat ${name}` })).toBe("exit code: 0\nx\n");
    await expect(access(name)).rejects.toThrow();
  });

  describe("network", () => {
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((socket) => socket.end("hello from the host\n"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address();
      if (address === null || typeof address === "string") throw new Error("no port");
      port = address.port;
    });
    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const connect = () =>
      `${process.execPath} -e "require('net').connect(${port}, '127.0.0.1').on('data', d => process.stdout.write(d)).on('error', e => { console.log('connect failed: ' + e.code); process.exit(7); })"`;

    it("has no network: a connection to a host port fails", async () => {
      const output = outputText(await run({ command: connect() }));
      expect(output).toMatch(/^exit code: 7\nconnect failed: (ECONNREFUSED|ENETUNREACH)/);
    });

    it("reaches the same port when unconfined, so the test above can fail", async () => {
      expect(await run({ command: connect() }, unconfined)).toBe("exit code: 0\nhello from the host\n");
    });

    it("cannot resolve host names", async () => {
      const output = outputText(await run({ command: "getent hosts example.com; echo status=$?" }));
      expect(output).toMatch(/status=[1-9]/);
    });
  });

  describe("outbound-only network (SKEIN_SANDBOX_NETWORK=1)", () => {
    const helper = probeNetworkHelper();
    const withNetwork: OfferedShell = {
      ...sandboxed,
      ...(helper.usable ? { network: { kind: "outbound", helper: helper.helper } } : {}),
    };
    let listener: HostListener;
    let peer: PeerListener | null = null;
    beforeAll(async () => {
      listener = await listenOnEveryAddress();
      if (canMakePeer()) peer = await startPeerListener();
    });
    afterAll(async () => {
      await listener?.close();
      peer?.close();
    });

    // A plain script in the workspace, run by node alone: the command's private /tmp may hide the checkout.
    const probeCommand = (request: ProbeRequest) =>
      `${process.execPath} ./${path.basename(writeProbeScript(workspace.root))} '${JSON.stringify(request)}'`;
    const probeIn = async (shell: OfferedShell, request: ProbeRequest): Promise<ProbeReport> => {
      const output = outputText(await run({ command: probeCommand(request) }, shell));
      expect(output).toMatch(/^exit code: 0\n/);
      return JSON.parse(output.slice(output.indexOf("\n") + 1)) as ProbeReport;
    };

    it.skipIf(!helper.usable)(
      "reaches no service of the host: not on loopback, not on its other addresses, not through slirp's gateway or DNS alias",
      async () => {
        const targets = [...hostAddresses(), "10.0.2.2", "10.0.2.3", "169.254.169.254", "0.0.0.0"];
        const tcp = targets.map((host) => ({ host, port: listener.port }));
        const report = await probeIn(withNetwork, { tcp });
        expect(Object.keys(report.tcp)).toHaveLength(targets.length);
        for (const [target, outcome] of Object.entries(report.tcp)) expect(outcome, target).not.toBe("open");
        // The same probe unconfined reaches the listener on every host address, so the test can fail.
        const control = await probeIn(unconfined, {
          tcp: hostAddresses().map((host) => ({ host, port: listener.port })),
        });
        for (const [target, outcome] of Object.entries(control.tcp)) expect(outcome, target).toBe("open");
      },
    );

    it.skipIf(!helper.usable || !canMakePeer())(
      "leaves the host's mounts alone: a named network namespace stays attached while a sandbox gets its network",
      async () => {
        const name = `skein-keep-${process.pid}-${Date.now() % 100_000}`;
        execFileSync("ip", ["netns", "add", name]);
        try {
          expect(outputText(await run({ command: "true" }, withNetwork))).toMatch(/^exit code: 0/);
          // Still a mount point: `ip netns exec` enters it.
          expect(execFileSync("ip", ["netns", "exec", name, "true"], { stdio: "pipe" }).length).toBe(0);
          expect(readFileSync("/proc/self/mountinfo", "utf8")).toContain(`/run/netns/${name}`);
        } finally {
          execFileSync("ip", ["netns", "delete", name], { stdio: "ignore" });
        }
      },
    );

    it.skipIf(!helper.usable)(
      "has a default route out and its own resolv.conf naming nameservers off the host",
      async () => {
        const output = outputText(
          await run({ command: "ip route; ip rule; cat /etc/resolv.conf" }, withNetwork),
        );
        expect(output).toMatch(/^default via 10\.0\.2\.2 dev tap0/m);
        expect(output).toMatch(/prohibit/);
        expect(output).not.toMatch(/nameserver 127\./);
      },
    );

    it.skipIf(!helper.usable || !canMakePeer())(
      "reaches a machine on the network (a listener in another network namespace), but not the host's end of the link",
      async () => {
        const target = peer!;
        const report = await probeIn(withNetwork, {
          tcp: [
            { host: target.address, port: target.port },
            { host: target.hostAddress, port: listener.port },
          ],
        });
        expect(report.tcp).toEqual({
          [`${target.address}:${target.port}`]: "open",
          [`${target.hostAddress}:${listener.port}`]: expect.not.stringMatching(/^open$/),
        });
      },
    );

    it.skipIf(!helper.usable)(
      "keeps everything else confined: the host outside the workspace is still read-only",
      async () => {
        const output = outputText(
          await run({ command: "touch /usr/skein-probe; echo status=$?" }, withNetwork),
        );
        expect(output).toMatch(/status=[1-9]/);
      },
    );

    it("says so and gives no network when the helper is missing", () => {
      const choice = chooseShell({
        env: { SKEIN_SANDBOX_NETWORK: "1" },
        probeNetwork: () => ({ usable: false, reason: "slirp4netns not found" }),
      });
      expect(choice).toMatchObject({ mode: "sandboxed", network: { kind: "unavailable" } });
      expect(describeShellChoice(choice)).toEqual({
        warning: true,
        text: expect.stringContaining(
          "it has no network although SKEIN_SANDBOX_NETWORK=1 asks for one: slirp4netns not found",
        ),
      });
    });
  });

  it("kills the whole process tree on timeout, including detached and setsid children", async () => {
    const [main, background, detached] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const output = await run({
      command: `sleep ${background} & setsid sleep ${detached} & echo started; sleep ${main}`,
      timeout_ms: 1_000,
    });
    expect(isErrorOutput(output)).toBe(true);
    expect(outputText(output)).toBe(
      "timed out after 1000 ms; the command and all its processes were killed\nstarted\n",
    );
    for (const seconds of [main, background, detached]) {
      await eventually(
        `sleep ${seconds} to be gone`,
        async () => (await sleepers(seconds)).length === 0 || undefined,
      );
    }
  });

  it("kills the whole process tree when the call is aborted", async () => {
    const [main, background] = [uniqueSleep(), uniqueSleep()];
    const controller = new AbortController();
    const pending = run(
      { command: `setsid sleep ${background} & sleep ${main}` },
      sandboxed,
      controller.signal,
    );
    await eventually(
      "both sleeps to run",
      async () =>
        ((await sleepers(main)).length === 1 && (await sleepers(background)).length === 1) || undefined,
    );
    controller.abort();
    const output = await pending;
    expect(isErrorOutput(output)).toBe(true);
    expect(outputText(output)).toMatch(/^cancelled; the command and all its processes were killed/);
    for (const seconds of [main, background]) {
      await eventually(
        `sleep ${seconds} to be gone`,
        async () => (await sleepers(seconds)).length === 0 || undefined,
      );
    }
  });

  it("leaves no background process running after the command exits", async () => {
    const background = uniqueSleep();
    expect(await run({ command: `(setsid sleep ${background} &) ; echo done` })).toBe("exit code: 0\ndone\n");
    await eventually(
      `sleep ${background} to be gone`,
      async () => (await sleepers(background)).length === 0 || undefined,
    );
  });

  it("refuses to start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expectToolError(
      run({ command: "true" }, sandboxed, controller.signal),
      "execution_failed",
      /cancelled/,
    );
  });

  it("truncates long output in the middle, saying how many bytes were omitted", async () => {
    const output = outputText(
      await run({ command: "printf 'HEAD'; head -c 200000 /dev/zero | tr '\\0' a; printf 'TAIL'" }),
    );
    const body = output.slice("exit code: 0\n".length);
    expect(output.startsWith("exit code: 0\nHEAD")).toBe(true);
    expect(output.endsWith("aTAIL")).toBe(true);
    expect(body).toContain(`[... output truncated: ${200008 - OUTPUT_LIMIT_BYTES} bytes omitted ...]`);
    expect(Buffer.byteLength(body)).toBeLessThan(OUTPUT_LIMIT_BYTES + 100);
  });

  it("rejects invalid arguments as invalid_argument", async () => {
    await expectToolError(run({}), "invalid_argument", /missing required property "command"/);
    await expectToolError(run({ command: "" }), "invalid_argument", /"command"/);
    await expectToolError(
      run({ command: "true", timeout_ms: 0 }),
      "invalid_argument",
      /"timeout_ms" must be >= 1/,
    );
    await expectToolError(
      run({ command: "true", timeout_ms: 600_001 }),
      "invalid_argument",
      /must be <= 600000/,
    );
    await expectToolError(run({ command: "true", cwd: "/" }), "invalid_argument", /unknown property "cwd"/);
  });

  it("fails with a typed error when the workspace is gone", async () => {
    await rm(workspace.root, { recursive: true });
    await expectToolError(run({ command: "true" }), "execution_failed", /is not accessible/);
  });
});

describe("run_command unconfined", () => {
  it("runs in the workspace with the same minimal environment", async () => {
    expect(await run({ command: 'pwd; echo "$HOME"; exit 4' }, unconfined)).toBe(
      `exit code: 4\n${workspace.root}\n${workspace.root}\n`,
    );
  });

  it("kills its process group on timeout", async () => {
    const [main, background] = [uniqueSleep(), uniqueSleep()];
    const output = await run({ command: `sleep ${background} & sleep ${main}`, timeout_ms: 500 }, unconfined);
    expect(outputText(output)).toMatch(/^timed out after 500 ms/);
    for (const seconds of [main, background]) {
      await eventually(
        `sleep ${seconds} to be gone`,
        async () => (await sleepers(seconds)).length === 0 || undefined,
      );
    }
  });
});
