/**
 * A PostgreSQL server owned by one test: initdb into a temporary directory, started on a free
 * loopback port, restarted or stopped at the test's will, and removed afterwards. The machine's
 * shared server (127.0.0.1:5432) serves every suite at once and must never be restarted; tests
 * of database outages restart this one.
 *
 * Boundary rule: test support. initdb refuses to run as root, so as root the server's programs
 * run as the `postgres` OS user (the directory is theirs); otherwise as the current user.
 */
import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "../../support/free-port.js";

/** The directory of the newest PostgreSQL server programs installed, or null. */
function postgresBinaries(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? null : join(root, versions[0]!, "bin");
}

export class PrivatePostgres {
  readonly port: number;
  readonly url: string;
  readonly #bin: string;
  readonly #root: string;
  readonly #data: string;
  readonly #owner: { uid: number; gid: number } | null;

  private constructor(bin: string, root: string, port: number, owner: { uid: number; gid: number } | null) {
    this.#bin = bin;
    this.#root = root;
    this.#data = join(root, "data");
    this.port = port;
    this.#owner = owner;
    this.url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  }

  /** initdb (trust authentication, superuser `postgres`) and start the server. */
  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBinaries();
    if (bin === null) throw new Error("no PostgreSQL server programs in /usr/lib/postgresql/*/bin");
    const root = mkdtempSync(join(tmpdir(), "skein-pg-"));
    let owner: { uid: number; gid: number } | null = null;
    if (userInfo().uid === 0) {
      const passwd = readFileSync("/etc/passwd", "utf8")
        .split("\n")
        .map((line) => line.split(":"))
        .find((fields) => fields[0] === "postgres");
      if (passwd === undefined)
        throw new Error("running as root, and there is no postgres user to run initdb as");
      owner = { uid: Number(passwd[2]), gid: Number(passwd[3]) };
      chownSync(root, owner.uid, owner.gid);
    }
    chmodSync(root, 0o700);
    const server = new PrivatePostgres(bin, root, await freePort(), owner);
    await server.#run("initdb", [
      "-D",
      server.#data,
      "-U",
      "postgres",
      "--auth=trust",
      "-E",
      "UTF8",
      "--no-sync",
    ]);
    await server.#ctl("start");
    return server;
  }

  /**
   * `pg_ctl restart -m fast`: every backend is terminated, the server is down for a moment.
   * Asynchronous, like every control here: the test's own traffic goes on meanwhile.
   */
  restart(): Promise<void> {
    return this.#ctl("restart", ["-m", "fast"]);
  }

  /** Stop the server: every connection is cut and new ones are refused (`fast`; `immediate`: killed, as by a crash). */
  stop(mode: "fast" | "immediate" = "fast"): Promise<void> {
    return this.#ctl("stop", ["-m", mode]);
  }

  /** Start the server again after `stop`. */
  resume(): Promise<void> {
    return this.#ctl("start");
  }

  /** Stop the server if it runs and remove its directory. */
  async close(): Promise<void> {
    await this.#ctl("stop", ["-m", "immediate"]).catch(() => undefined);
    rmSync(this.#root, { recursive: true, force: true });
  }

  #ctl(action: string, extra: string[] = []): Promise<void> {
    const options = `-p ${this.port} -k ${this.#root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
    return this.#run("pg_ctl", [
      action,
      "-D",
      this.#data,
      "-w",
      "-t",
      "60",
      "-l",
      join(this.#root, "server.log"),
      ...(action === "stop" ? [] : ["-o", options]),
      ...extra,
    ]);
  }

  #run(program: string, args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(join(this.#bin, program), args, {
        cwd: this.#root,
        stdio: ["ignore", "pipe", "pipe"],
        ...(this.#owner === null ? {} : { uid: this.#owner.uid, gid: this.#owner.gid }),
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
      child.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once("close", (code, signal) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`${program} ${args.join(" ")} failed (${code ?? signal}): ${output}`));
      });
    });
  }
}
