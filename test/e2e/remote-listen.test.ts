/**
 * Listening beyond loopback, against the real daemon process: with SKEIN_TLS_CERT/KEY (a
 * certificate made by openssl for this run; no key is committed) a daemon on 0.0.0.0 answers
 * HTTPS, the client library and the CLI reach it through daemon.json trusting that certificate,
 * and plain HTTP gets no answer; Host and Origin checks accept the configured public URL and
 * refuse another; without TLS or a trusted proxy it refuses to start and says what to set; a key
 * file others may read is refused; behind SKEIN_TRUST_PROXY the recorded address of an input is
 * the one the proxy forwarded, and only from the proxy.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonClient } from "../../src/client/daemon-client.js";
import { eventually } from "../support/eventually.js";
import { freePort } from "../support/free-port.js";
import { DaemonHarness, skeinBin } from "./support/daemon-harness.js";

const run = promisify(execFile);

/** A self-signed certificate for skein.test (not 127.0.0.1: the client pins it instead). */
async function makeCertificate(directory: string): Promise<{ cert: string; key: string }> {
  const cert = join(directory, "cert.pem");
  const key = join(directory, "key.pem");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "1",
    "-subj",
    "/CN=skein.test",
  ]);
  chmodSync(key, 0o600);
  return { cert, key };
}

/** Run `skein daemon run` with `env`; resolves with its exit code and stderr once it exits. */
function runDaemon(env: Record<string, string>): {
  child: ChildProcess;
  exited: Promise<{ code: number | null; stderr: string }>;
} {
  const child = spawn(process.execPath, [skeinBin, "daemon", "run"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return { child, exited: new Promise((done) => child.once("exit", (code) => done({ code, stderr }))) };
}

/** One HTTPS request trusting `cert`, with `headers`; status and body. */
function httpsGet(
  port: number,
  path: string,
  cert: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = httpsRequest(
      {
        host: "127.0.0.1",
        port,
        path,
        ca: cert,
        servername: "skein.test",
        checkServerIdentity: () => undefined,
        headers,
      },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        res.on("end", () => done({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", fail);
    req.end();
  });
}

describe("a daemon on a non-loopback address with TLS", () => {
  let root: string;
  let files: { cert: string; key: string };
  let daemon: ReturnType<typeof runDaemon>;
  let home: string;
  let port: number;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "skein-remote-"));
    files = await makeCertificate(root);
    home = join(root, "home");
    port = await freePort("0.0.0.0");
    daemon = runDaemon({
      SKEIN_HOME: home,
      HOME: root,
      SKEIN_LISTEN: `0.0.0.0:${port}`,
      SKEIN_TLS_CERT: files.cert,
      SKEIN_TLS_KEY: files.key,
      SKEIN_PUBLIC_URLS: "https://skein.example.com",
    });
    await eventually("the daemon is ready", async () => {
      try {
        return (await DaemonClient.forHome(home).server(1_000)).state === "ready" ? true : undefined;
      } catch {
        return undefined;
      }
    });
  }, 30_000);

  afterAll(async () => {
    daemon?.child.kill("SIGTERM");
    await daemon?.exited;
    rmSync(root, { recursive: true, force: true });
  });

  it("answers HTTPS, reached by the client library and the CLI through daemon.json", async () => {
    const discovery = JSON.parse(readFileSync(join(home, "daemon.json"), "utf8")) as Record<string, unknown>;
    expect(discovery).toMatchObject({ port, tls_cert: files.cert });
    const client = DaemonClient.forHome(home);
    expect((await client.server()).state).toBe("ready");
    client.close();
    const created = await run(process.execPath, [skeinBin, "token", "create", "remote", "--role", "viewer"], {
      env: { ...process.env, SKEIN_HOME: home, SKEIN_NO_AUTOSTART: "1" },
    });
    expect(created.stdout).toMatch(/^skn_\S+\n$/);
  });

  it("gives plain HTTP no answer", async () => {
    const outcome = await new Promise<string>((done) => {
      const req = httpRequest({ host: "127.0.0.1", port, path: "/server" }, (res) =>
        done(`answered ${res.statusCode}`),
      );
      req.on("error", (error: NodeJS.ErrnoException) => done(`failed ${error.code ?? error.message}`));
      req.setTimeout(5_000, () => req.destroy(new Error("timeout")));
      req.end();
    });
    expect(outcome).toMatch(/^failed /);
  });

  it("accepts the configured public URL as Host and Origin, and refuses another origin", async () => {
    const token = (JSON.parse(readFileSync(join(home, "daemon.json"), "utf8")) as { token: string }).token;
    const base = { authorization: `Bearer ${token}`, host: "skein.example.com" };
    const own = await httpsGet(port, "/server", readFileSync(files.cert, "utf8"), {
      ...base,
      origin: "https://skein.example.com",
    });
    expect(own.status, own.body).toBe(200);
    const foreign = await httpsGet(port, "/server", readFileSync(files.cert, "utf8"), {
      ...base,
      origin: "https://evil.example.com",
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ code: "origin_forbidden" });
    const otherHost = await httpsGet(port, "/server", readFileSync(files.cert, "utf8"), {
      ...base,
      host: "evil.example.com",
    });
    expect(JSON.parse(otherHost.body)).toMatchObject({ code: "host_forbidden" });
  });
});

describe("refusing to listen where the token would travel in clear text", () => {
  it("refuses a non-loopback SKEIN_LISTEN without TLS or a trusted proxy, saying what to set", async () => {
    const root = mkdtempSync(join(tmpdir(), "skein-remote-"));
    try {
      const { exited } = runDaemon({ SKEIN_HOME: join(root, "home"), HOME: root, SKEIN_LISTEN: "0.0.0.0:0" });
      const { code, stderr } = await exited;
      expect(code).toBe(1);
      expect(stderr).toContain('SKEIN_LISTEN="0.0.0.0" is invalid: it is not a loopback address');
      expect(stderr).toContain("set SKEIN_TLS_CERT and SKEIN_TLS_KEY");
      expect(stderr).toContain("SKEIN_TRUST_PROXY");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("refuses a TLS key file other users may read", async () => {
    const root = mkdtempSync(join(tmpdir(), "skein-remote-"));
    try {
      const files = await makeCertificate(root);
      chmodSync(files.key, 0o644);
      const { exited } = runDaemon({
        SKEIN_HOME: join(root, "home"),
        HOME: root,
        SKEIN_LISTEN: "0.0.0.0:0",
        SKEIN_TLS_CERT: files.cert,
        SKEIN_TLS_KEY: files.key,
      });
      const { code, stderr } = await exited;
      expect(code).toBe(1);
      expect(stderr).toContain("readable or writable by other users (mode 0644)");
      expect(stderr).toContain(`chmod 600 ${files.key}`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("behind a trusted reverse proxy", () => {
  it("records the forwarded client address of an input only when the proxy's address is trusted", async () => {
    for (const [trust, expected] of [
      ["127.0.0.1", "203.0.113.7"],
      ["10.9.9.9", "127.0.0.1"],
    ] as const) {
      const app = await DaemonHarness.start({ env: { SKEIN_TRUST_PROXY: trust } });
      try {
        const sessionId = await app.createSession();
        const answer = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
          method: "PUT",
          headers: { "x-forwarded-for": "198.51.100.1, 203.0.113.7" },
          body: { kind: "message", text: "hello" },
        });
        expect(answer.status, answer.text).toBe(202);
        expect(answer.json()).toMatchObject({ sent_by: "bootstrap", sent_from: expected });
      } finally {
        await app.close();
      }
    }
  });
});
