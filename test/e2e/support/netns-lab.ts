/**
 * A small network of Linux network namespaces standing in for separate machines: one "switch"
 * namespace holding a bridge, one namespace per host joined to it by a veth pair, each host with
 * its own address in a /24 of 198.18.0.0/15 (the range set aside for network testing, routed
 * nowhere; chosen at random per lab), and the test process's own namespace joined as its .1 so it can be a client of every host. A
 * partition is an nftables table in a host's namespace that drops its packets to and from the
 * addresses named. A private PostgreSQL server (initdb into a temporary folder, run as the
 * `postgres` user) can run in a host of its own.
 *
 * Each namespace is held by a process of its own (`unshare -n sleep`) and entered through
 * `/proc/<pid>/ns/net` with nsenter, not named under /run/netns: named namespaces are bind
 * mounts, and a process elsewhere on the machine that detaches mounts (slirp4netns
 * --enable-sandbox run as root does) makes them unusable mid-test.
 *
 * Boundary rule: needs root (CI runs as root) and the kernel's namespaces; `NetnsLab.unavailable()`
 * says why not, for the suite's skip. Every interface name carries a random prefix, and
 * `destroy()` removes what `create` made (a namespace goes with its last process, and its
 * interfaces with it); nothing of the machine's own network is changed but the one veth end and
 * its address, removed with the lab.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

function run(command: string[], input?: string): string {
  const result = spawnSync(command[0]!, command.slice(1), { encoding: "utf8", input });
  if (result.status !== 0) {
    throw new Error(`${command.join(" ")} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}

/** One host of the lab: a namespace with an address. */
export interface LabHost {
  name: string;
  /** The process holding its namespace. */
  pid: number;
  address: string;
  /** Prefix for a command to run inside the host (nsenter into its namespace; it execs the command). */
  launcher: string[];
}

/** The command prefix that runs a command in the network namespace of `pid`. */
function enter(pid: number): string[] {
  return ["nsenter", `--net=/proc/${pid}/ns/net`, "--"];
}

function readlinkOrNull(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}

export class NetnsLab {
  readonly hosts = new Map<string, LabHost>();
  readonly #prefix: string;
  /** The lab's /24, a random one of 198.18.0.0/15, so two labs on one machine do not meet. */
  readonly subnet: string;
  /** The processes holding the namespaces. */
  readonly #holders: ChildProcess[] = [];
  #database: ChildProcess | null = null;
  #databaseDir: string | null = null;

  private constructor(prefix: string) {
    this.#prefix = prefix;
    const [high, third] = randomBytes(2);
    this.subnet = `198.${18 + (high! % 2)}.${third!}`;
  }

  /** Why the lab cannot run here (not root, no `ip`, namespaces refused), or null when it can. */
  static unavailable(): string | null {
    if (process.getuid?.() !== 0) return "network namespaces need root (CI runs as root)";
    for (const tool of ["ip", "nft", "nsenter", "unshare", "setpriv"]) {
      const found = spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" });
      if (found.status !== 0) return `${tool} is not installed (iproute2, nftables, util-linux)`;
    }
    const probe = spawnSync("unshare", ["-n", "true"], { encoding: "utf8" });
    if (probe.status !== 0) return `the kernel refused a network namespace: ${probe.stderr.trim()}`;
    if (spawnSync("id", ["-u", "postgres"]).status !== 0)
      return "there is no postgres user to run a private server as";
    try {
      postgresBin();
    } catch (error) {
      return (error as Error).message;
    }
    return null;
  }

  /** Make the switch and one host per name, `names[i]` at <subnet>.(10 + i). */
  static async create(names: readonly string[]): Promise<NetnsLab> {
    const lab = new NetnsLab(`sk${randomBytes(3).toString("hex")}`);
    try {
      await lab.#build(names);
    } catch (error) {
      await lab.destroy();
      throw error;
    }
    return lab;
  }

  /** A new network namespace, held by a process; the pid that names it. */
  async #namespace(): Promise<number> {
    const holder = spawn("unshare", ["-n", "sleep", "infinity"], { stdio: "ignore" });
    this.#holders.push(holder);
    const pid = holder.pid;
    if (pid === undefined) throw new Error("unshare did not start");
    // unshare execs sleep once the namespace exists: wait until the pid's namespace is not ours.
    const own = readlinkSync("/proc/self/ns/net");
    const deadline = Date.now() + 5_000;
    while (readlinkOrNull(`/proc/${pid}/ns/net`) === own || readlinkOrNull(`/proc/${pid}/ns/net`) === null) {
      if (holder.exitCode !== null || Date.now() > deadline)
        throw new Error("unshare -n did not make a namespace");
      await new Promise((wake) => setTimeout(wake, 10));
    }
    return pid;
  }

  async #build(names: readonly string[]): Promise<void> {
    const p = this.#prefix;
    const switchPid = await this.#namespace();
    const inSwitch = enter(switchPid);
    run([...inSwitch, "ip", "link", "add", "br0", "type", "bridge"]);
    run([...inSwitch, "ip", "link", "set", "br0", "up"]);
    // The test process's side: one veth end here, its peer on the bridge.
    run(["ip", "link", "add", `${p}h`, "type", "veth", "peer", "name", `${p}hp`, "netns", String(switchPid)]);
    run(["ip", "addr", "add", `${this.clientAddress}/24`, "dev", `${p}h`]);
    run(["ip", "link", "set", `${p}h`, "up"]);
    run([...inSwitch, "ip", "link", "set", `${p}hp`, "master", "br0", "up"]);
    for (const [index, name] of names.entries()) {
      const pid = await this.#namespace();
      const address = `${this.subnet}.${10 + index}`;
      const inside = `${p}${index}`;
      run([
        "ip",
        "link",
        "add",
        inside,
        "type",
        "veth",
        "peer",
        "name",
        `${inside}p`,
        "netns",
        String(switchPid),
      ]);
      run(["ip", "link", "set", inside, "netns", String(pid)]);
      const exec = enter(pid);
      run([...exec, "ip", "link", "set", "lo", "up"]);
      run([...exec, "ip", "addr", "add", `${address}/24`, "dev", inside]);
      run([...exec, "ip", "link", "set", inside, "up"]);
      run([...inSwitch, "ip", "link", "set", `${inside}p`, "master", "br0", "up"]);
      this.hosts.set(name, { name, pid, address, launcher: exec });
    }
  }

  /** The test process's address on the lab network (x.x.x.1). */
  get clientAddress(): string {
    return `${this.subnet}.1`;
  }

  host(name: string): LabHost {
    const host = this.hosts.get(name);
    if (host === undefined) throw new Error(`no lab host ${name}`);
    return host;
  }

  /** Drop every packet between `name` and the addresses of `peers` (hosts, or the test process's address). */
  partition(name: string, peers: readonly string[]): void {
    const addresses = peers.map((peer) => (peer === this.clientAddress ? peer : this.host(peer).address));
    const set = addresses.join(", ");
    run(
      [...this.host(name).launcher, "nft", "-f", "-"],
      `table inet skein_partition {
  chain in { type filter hook input priority 0; policy accept; ip saddr { ${set} } drop; }
  chain out { type filter hook output priority 0; policy accept; ip daddr { ${set} } drop; }
}
`,
    );
  }

  /** Lift the partition of `name`. */
  heal(name: string): void {
    run([...this.host(name).launcher, "nft", "delete", "table", "inet", "skein_partition"]);
  }

  /**
   * A private PostgreSQL server in host `name` (trust authentication on the lab network), as
   * the `postgres` user; the URL of its `postgres` database, as every lab host reaches it.
   */
  async startPostgres(name: string): Promise<string> {
    const bin = postgresBin();
    const host = this.host(name);
    const dir = mkdtempSync(join(tmpdir(), "skein-netns-pg-"));
    this.#databaseDir = dir;
    const uid = Number(run(["id", "-u", "postgres"]).trim());
    const gid = Number(run(["id", "-g", "postgres"]).trim());
    chownSync(dir, uid, gid);
    const asPostgres = ["setpriv", `--reuid=${uid}`, `--regid=${gid}`, "--init-groups"];
    run([
      ...asPostgres,
      join(bin, "initdb"),
      "-D",
      join(dir, "data"),
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
    ]);
    await appendFile(join(dir, "data", "pg_hba.conf"), `host all all ${this.subnet}.0/24 trust\n`);
    writeFileSync(join(dir, "server.log"), "");
    chownSync(join(dir, "server.log"), uid, gid);
    const server = spawn(
      host.launcher[0]!,
      [
        ...host.launcher.slice(1),
        ...asPostgres,
        join(bin, "postgres"),
        "-D",
        join(dir, "data"),
        "-c",
        `listen_addresses=${host.address}`,
        "-c",
        `unix_socket_directories=${dir}`,
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "max_connections=200",
      ],
      { stdio: "ignore" },
    );
    this.#database = server;
    const url = `postgres://postgres@${host.address}:5432/postgres`;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
      try {
        await client.connect();
        await client.end();
        return url;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (server.exitCode !== null || Date.now() > deadline) {
          throw new Error(`the lab's PostgreSQL did not start: ${(error as Error).message}`);
        }
        await new Promise((wake) => setTimeout(wake, 100));
      }
    }
  }

  /** Stop the database server and remove every namespace, interface and file of the lab. */
  async destroy(): Promise<void> {
    const server = this.#database;
    if (server !== null && server.exitCode === null && server.signalCode === null) {
      // Immediate shutdown: the data is thrown away with the folder.
      const exited = new Promise<void>((done) => server.once("exit", () => done()));
      server.kill("SIGQUIT");
      const timer = setTimeout(() => server.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    // A namespace goes with its last process (the daemons in it are stopped by then).
    for (const holder of this.#holders) holder.kill("SIGKILL");
    spawnSync("ip", ["link", "del", `${this.#prefix}h`]);
    if (this.#databaseDir !== null) rmSync(this.#databaseDir, { recursive: true, force: true });
  }
}

/** The bin folder of the newest PostgreSQL installed under /usr/lib/postgresql. */
function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error(`no PostgreSQL server under ${root}`);
  return join(root, versions[0]!, "bin");
}
