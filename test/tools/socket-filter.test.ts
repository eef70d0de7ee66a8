/**
 * Host services behind Unix sockets, seen from a sandboxed `run_command`: the real kernel runs
 * the seccomp filter inside real bubblewrap, next to listeners this test starts. The same
 * commands in a sandbox without the filter (an architecture it has no table for) and in an
 * unconfined shell show what the filter is what stops them.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BWRAP_PATH } from "../../src/tools/bubblewrap.js";
import { runCommandTool } from "../../src/tools/run-command.js";
import { chooseShell, describeShellChoice, type OfferedShell } from "../../src/tools/shell-mode.js";
import { ALLOWED_SOCKET_FAMILIES, socketFilterFor } from "../../src/tools/socket-filter.js";
import { runSeccompProgram } from "./classic-bpf.js";
import { i386SyscallProgram, SURVIVED_STATUS, x32SyscallProgram } from "./tiny-elf.js";
import { callTool, outputText, requireBwrap, withTempDirectory } from "./tool-harness.js";

const filtered: OfferedShell = {
  mode: "sandboxed",
  bwrapPath: DEFAULT_BWRAP_PATH,
  socketFilter: socketFilterFor(),
};
const unfiltered: OfferedShell = {
  mode: "sandboxed",
  bwrapPath: DEFAULT_BWRAP_PATH,
  socketFilter: socketFilterFor("riscv64"),
};
const unconfined: OfferedShell = { mode: "unconfined" };
const isRoot = process.getuid?.() === 0;
const postgresSocket = "/run/postgresql/.s.PGSQL.5432";
/** Killed by SIGSYS, as the shell reports it. */
const KILLED_BY_SECCOMP = 128 + 31;
/** The shell's status for a process killed by SIGSEGV. */
const KILLED_BY_SEGV = 128 + 11;

const workspace = withTempDirectory();
const run = async (shell: OfferedShell, command: string) =>
  outputText(await callTool(runCommandTool(workspace.root, shell), { command }));

/** A node one-liner that connects to a Unix socket and prints "connected" or the error code. */
const connectCommand = (socketPath: string) =>
  `${process.execPath} -e 'require("net").connect(${JSON.stringify(socketPath)})` +
  `.on("connect", () => { console.log("connected"); process.exit(0); })` +
  `.on("error", (e) => { console.log("connect failed: " + e.code); process.exit(7); })'`;

async function listen(socketPath: string): Promise<Server> {
  const server = createServer((socket) => {
    // The sandboxed client exits as soon as it is connected: a reset is expected.
    socket.on("error", () => undefined);
    socket.end("hello\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolve);
  });
  return server;
}

function canConnectFromHost(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

beforeAll(() => {
  requireBwrap();
});

describe("the socket filter in the sandbox", () => {
  const servers: Server[] = [];
  let visibleDirectory: string;
  let visibleSocket: string;
  let runDirectory: string | null = null;
  const abstractName = `\0skein-test-${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    // Outside /tmp and /run: the sandbox sees this directory, read-only.
    visibleDirectory = await mkdtemp(path.join("/var/tmp", "skein-sockets-"));
    visibleSocket = path.join(visibleDirectory, "service.sock");
    servers.push(await listen(visibleSocket), await listen(abstractName));
    if (isRoot) {
      runDirectory = await mkdtemp(path.join("/run", "skein-test-"));
      servers.push(await listen(path.join(runDirectory, "service.sock")));
    }
  });

  afterAll(async () => {
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await rm(visibleDirectory, { recursive: true, force: true });
    if (runDirectory !== null) await rm(runDirectory, { recursive: true, force: true });
  });

  it("refuses a Unix socket the sandbox can see, which it reaches without the filter", async () => {
    expect(await canConnectFromHost(visibleSocket)).toBe(true);
    expect(await run(filtered, connectCommand(visibleSocket))).toBe("exit code: 7\nconnect failed: EACCES\n");
    expect(await run(unfiltered, connectCommand(visibleSocket))).toBe("exit code: 0\nconnected\n");
  });

  it("refuses a Unix socket inside the workspace, where the sandbox may write", async () => {
    const inWorkspace = path.join(workspace.root, "own.sock");
    servers.push(await listen(inWorkspace));
    expect(await run(filtered, connectCommand(inWorkspace))).toBe("exit code: 7\nconnect failed: EACCES\n");
    expect(await run(unfiltered, connectCommand(inWorkspace))).toBe("exit code: 0\nconnected\n");
  });

  it.runIf(isRoot)(
    "hides sockets under /run behind an empty tmpfs (needs root to listen there)",
    async () => {
      const runSocket = path.join(runDirectory ?? "/run/missing", "service.sock");
      expect(await canConnectFromHost(runSocket)).toBe(true);
      expect(await run(filtered, connectCommand(runSocket))).toBe("exit code: 7\nconnect failed: EACCES\n");
      expect(await run(unfiltered, connectCommand(runSocket))).toBe("exit code: 7\nconnect failed: ENOENT\n");
      const varRun = path.join("/var/run", path.basename(runDirectory ?? ""), "service.sock");
      expect(await run(unfiltered, connectCommand(varRun))).toBe("exit code: 7\nconnect failed: ENOENT\n");
      expect(await run(filtered, "ls -A /run /var/run")).toBe("exit code: 0\n/run:\n\n/var/run:\n");
    },
  );

  it("confines abstract sockets to the sandbox's network namespace, filter or not", async () => {
    expect(await canConnectFromHost(abstractName)).toBe(true);
    expect(await run(unconfined, connectCommand(abstractName))).toBe("exit code: 0\nconnected\n");
    expect(await run(unfiltered, connectCommand(abstractName))).toBe(
      "exit code: 7\nconnect failed: ECONNREFUSED\n",
    );
    expect(await run(filtered, connectCommand(abstractName))).toBe("exit code: 7\nconnect failed: EACCES\n");
  });

  it.runIf(existsSync(postgresSocket))("cannot reach the host's PostgreSQL through its socket", async () => {
    expect(await canConnectFromHost(postgresSocket)).toBe(true);
    expect(await run(filtered, connectCommand(postgresSocket))).toBe(
      "exit code: 7\nconnect failed: EACCES\n",
    );
    const psql = spawnSync("sh", ["-c", "command -v psql"], { encoding: "utf8" }).stdout.trim();
    if (psql !== "") {
      const output = await run(
        filtered,
        `${psql} -h /run/postgresql -U postgres -d postgres -c 'select 1'; echo status=$?`,
      );
      expect(output).toMatch(/could not create socket: Permission denied\nstatus=2\n$/);
    }
  });
});

describe("what still works under the filter", () => {
  it("runs ordinary commands: echo, ls, files in the workspace, pipes, nested processes", async () => {
    expect(await run(filtered, "echo hi")).toBe("exit code: 0\nhi\n");
    expect(await run(filtered, "mkdir d && echo x > d/f && ls d && cat d/f | tr x y")).toBe(
      "exit code: 0\nf\ny\n",
    );
    expect(
      await run(
        filtered,
        `${process.execPath} -e 'console.log(require("child_process").execSync("echo nested").toString().trim())'`,
      ),
    ).toBe("exit code: 0\nnested\n");
  });

  it("allows socketpair and IPv4 on the sandbox's own loopback", async () => {
    expect(
      await run(
        filtered,
        `perl -MSocket -e 'socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or die "socketpair: $!"; print "pair ok\\n"'`,
      ),
    ).toBe("exit code: 0\npair ok\n");
    const loopback =
      `${process.execPath} -e 'const net = require("net"); const s = net.createServer((c) => c.end("pong"))` +
      `.listen(0, "127.0.0.1", () => net.connect(s.address().port, "127.0.0.1").on("data", (d) => { console.log(String(d)); process.exit(0); }))'`;
    expect(await run(filtered, loopback)).toBe("exit code: 0\npong\n");
  });
});

describe("system calls the filter refuses", () => {
  it("fails io_uring_setup with EPERM, which works without the filter", async () => {
    const command = `perl -e '$p = "\\0" x 120; $fd = syscall(425, 1, $p); print $fd >= 0 ? "io_uring ok\\n" : "io_uring failed: " . ($! + 0) . "\\n"'`;
    expect(await run(filtered, command)).toBe("exit code: 0\nio_uring failed: 1\n");
    const disabled = Number(readFileSync("/proc/sys/kernel/io_uring_disabled", "utf8").trim() || "0");
    if (disabled === 0) expect(await run(unfiltered, command)).toBe("exit code: 0\nio_uring ok\n");
  });

  it.runIf(process.arch === "x64")("kills a process that makes an i386 or x32 system call", async () => {
    await writeFile(path.join(workspace.root, "i386"), i386SyscallProgram());
    await writeFile(path.join(workspace.root, "x32"), x32SyscallProgram());
    await chmod(path.join(workspace.root, "i386"), 0o755);
    await chmod(path.join(workspace.root, "x32"), 0o755);
    const command = "./i386; echo i386=$?; ./x32; echo x32=$?";
    const statusOf = (output: string, abi: string) => Number(new RegExp(`${abi}=(\\d+)`).exec(output)?.[1]);
    const unfilteredOutput = await run(unfiltered, command);
    const filteredOutput = await run(filtered, command);
    for (const abi of ["i386", "x32"]) {
      const without = statusOf(unfilteredOutput, abi);
      if (without === SURVIVED_STATUS) {
        // The kernel serves this ABI: only the filter stops the call.
        expect(statusOf(filteredOutput, abi), filteredOutput).toBe(KILLED_BY_SECCOMP);
      } else {
        // Some kernels refuse the ABI outright (e.g. int 0x80 faults with SIGSEGV when 32-bit
        // emulation is off for the process): there is nothing to bypass, and nothing survives.
        expect(without, unfilteredOutput).toBe(KILLED_BY_SEGV);
        expect(statusOf(filteredOutput, abi), filteredOutput).not.toBe(SURVIVED_STATUS);
      }
    }
  });
});

describe("socketFilterFor", () => {
  it("has a program for this machine, and says so for an architecture it does not know", () => {
    expect(socketFilterFor()).toMatchObject({ kind: "filter", architecture: process.arch });
    expect(socketFilterFor("riscv64")).toEqual({
      kind: "unsupported",
      architecture: "riscv64",
      reason: "no seccomp socket filter is defined for the riscv64 architecture",
    });
  });

  it("lets the daemon log a warning when commands run without the filter", () => {
    requireBwrap();
    expect(describeShellChoice(chooseShell({ env: {} }))).toEqual({
      warning: false,
      text: `run_command is sandboxed by ${DEFAULT_BWRAP_PATH} with a seccomp socket filter (${process.arch}); it has no network (SKEIN_SANDBOX_NETWORK=1 gives it an outbound-only one)`,
    });
    expect(describeShellChoice(unfiltered)).toMatchObject({
      warning: true,
      text: expect.stringContaining(
        "riscv64 architecture): host Unix sockets outside /run and /tmp stay reachable",
      ),
    });
  });

  it("allows exactly the families confined by the network namespace", () => {
    expect(ALLOWED_SOCKET_FAMILIES).toEqual({ AF_INET: 2, AF_INET6: 10, AF_NETLINK: 16 });
  });
});

describe("the filter's decisions, run instruction by instruction", () => {
  const ALLOW = 0x7fff0000;
  const KILL_PROCESS = 0x80000000;
  const EACCES = 0x00050000 | 13;
  const EPERM = 0x00050000 | 1;
  const architectures = [
    { name: "x64", auditArch: 0xc000003e, foreign: 0x40000003, socket: 41, socketpair: 53, read: 0 },
    { name: "arm64", auditArch: 0xc00000b7, foreign: 0x40000028, socket: 198, socketpair: 199, read: 63 },
  ];

  for (const architecture of architectures) {
    it(`decides like the kernel should on ${architecture.name}`, () => {
      const filter = socketFilterFor(architecture.name);
      if (filter.kind !== "filter") throw new Error(`no filter for ${architecture.name}`);
      const decide = (nr: number, args: number[] = [], arch = architecture.auditArch) =>
        runSeccompProgram(filter.program, { nr, arch, args });
      expect(decide(architecture.socket, [1, 1, 0])).toBe(EACCES); // AF_UNIX
      expect(decide(architecture.socket, [40, 1, 0])).toBe(EACCES); // AF_VSOCK
      expect(decide(architecture.socket, [2, 1, 0])).toBe(ALLOW); // AF_INET
      expect(decide(architecture.socket, [10, 2, 0])).toBe(ALLOW); // AF_INET6
      expect(decide(architecture.socket, [16, 3, 0])).toBe(ALLOW); // AF_NETLINK
      expect(decide(architecture.socketpair, [1, 1, 0])).toBe(ALLOW);
      expect(decide(architecture.read)).toBe(ALLOW);
      for (const ioUring of [425, 426, 427]) expect(decide(ioUring)).toBe(EPERM);
      expect(decide(architecture.read, [], architecture.foreign)).toBe(KILL_PROCESS);
      expect(decide(0x40000000 | architecture.socket, [1, 1, 0])).toBe(
        architecture.name === "x64" ? KILL_PROCESS : ALLOW,
      );
    });
  }
});
