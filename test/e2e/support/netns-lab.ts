/**
 * A small network of Linux network namespaces standing in for separate machines: one "switch"
 * namespace holding a bridge, one namespace per host joined to it by a veth pair, each host with
 * its own address in 198.18.0.0/24 (the range set aside for network testing, routed nowhere), and
 * the test process's own namespace joined as 198.18.0.1 so it can be a client of every host. A
 * partition is an nftables table in a host's namespace that drops its packets to and from the
 * addresses named. A private PostgreSQL server (initdb into a temporary folder, run as the
 * `postgres` user) can run in a host of its own.
 *
 * Boundary rule: needs root (CI runs as root) and the kernel's namespaces; `NetnsLab.unavailable()`
 * says why not, for the suite's skip. Every name carries a random prefix, and `destroy()` removes
 * what `create` made (deleting a namespace deletes its interfaces); nothing of the machine's own
 * network is changed but the one veth end and its address, removed with the lab.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

const subnet = "198.18.0";
/** The test process's address on the lab network. */
export const labHostAddress = `${subnet}.1`;

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
  namespace: string;
  address: string;
  /** Prefix for a command to run inside the host (`ip netns exec <namespace>`). */
  launcher: string[];
}

export class NetnsLab {
  readonly hosts = new Map<string, LabHost>();
  readonly #prefix: string;
  readonly #switch: string;
  #database: ChildProcess | null = null;
  #databaseDir: string | null = null;

  private constructor(prefix: string) {
    this.#prefix = prefix;
    this.#switch = `${prefix}-sw`;
  }

  /** Why the lab cannot run here (not root, no `ip`, namespaces refused), or null when it can. */
  static unavailable(): string | null {
    if (process.getuid?.() !== 0) return "network namespaces need root (CI runs as root)";
    const probe = `skprobe${randomBytes(3).toString("hex")}`;
    const added = spawnSync("ip", ["netns", "add", probe], { encoding: "utf8" });
    if (added.error !== undefined) return `ip (iproute2) cannot run: ${added.error.message}`;
    if (added.status !== 0) return `the kernel refused a network namespace: ${added.stderr.trim()}`;
    spawnSync("ip", ["netns", "del", probe]);
    const nft = spawnSync("nft", ["--version"], { encoding: "utf8" });
    if (nft.error !== undefined || nft.status !== 0) return "nft (nftables) is not installed";
    if (spawnSync("id", ["-u", "postgres"]).status !== 0)
      return "there is no postgres user to run a private server as";
    try {
      postgresBin();
    } catch (error) {
      return (error as Error).message;
    }
    return null;
  }

  /** Make the switch and one host per name, `names[i]` at 198.18.0.(10 + i). */
  static create(names: readonly string[]): NetnsLab {
    const lab = new NetnsLab(`sk${randomBytes(3).toString("hex")}`);
    try {
      lab.#build(names);
    } catch (error) {
      void lab.destroy();
      throw error;
    }
    return lab;
  }

  #build(names: readonly string[]): void {
    const p = this.#prefix;
    run(["ip", "netns", "add", this.#switch]);
    run(["ip", "netns", "exec", this.#switch, "ip", "link", "add", "br0", "type", "bridge"]);
    run(["ip", "netns", "exec", this.#switch, "ip", "link", "set", "br0", "up"]);
    // The test process's side: one veth end here, its peer on the bridge.
    run(["ip", "link", "add", `${p}h`, "type", "veth", "peer", "name", `${p}hp`, "netns", this.#switch]);
    run(["ip", "addr", "add", `${labHostAddress}/24`, "dev", `${p}h`]);
    run(["ip", "link", "set", `${p}h`, "up"]);
    run(["ip", "netns", "exec", this.#switch, "ip", "link", "set", `${p}hp`, "master", "br0", "up"]);
    names.forEach((name, index) => {
      const namespace = `${p}-${name}`;
      const address = `${subnet}.${10 + index}`;
      const inside = `${p}${index}`;
      run(["ip", "netns", "add", namespace]);
      run(["ip", "link", "add", inside, "type", "veth", "peer", "name", `${inside}p`, "netns", this.#switch]);
      run(["ip", "link", "set", inside, "netns", namespace]);
      const exec = ["ip", "netns", "exec", namespace];
      run([...exec, "ip", "link", "set", "lo", "up"]);
      run([...exec, "ip", "addr", "add", `${address}/24`, "dev", inside]);
      run([...exec, "ip", "link", "set", inside, "up"]);
      run(["ip", "netns", "exec", this.#switch, "ip", "link", "set", `${inside}p`, "master", "br0", "up"]);
      this.hosts.set(name, { name, namespace, address, launcher: exec });
    });
  }

  host(name: string): LabHost {
    const host = this.hosts.get(name);
    if (host === undefined) throw new Error(`no lab host ${name}`);
    return host;
  }

  /** Drop every packet between `name` and the addresses of `peers` (hosts, or the test process's address). */
  partition(name: string, peers: readonly string[]): void {
    const addresses = peers.map((peer) => (peer === labHostAddress ? peer : this.host(peer).address));
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
    await appendFile(join(dir, "data", "pg_hba.conf"), `host all all ${subnet}.0/24 trust\n`);
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
    for (const host of this.hosts.values()) spawnSync("ip", ["netns", "del", host.namespace]);
    spawnSync("ip", ["link", "del", `${this.#prefix}h`]);
    spawnSync("ip", ["netns", "del", this.#switch]);
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
