/**
 * Operating a cluster: one live node per address (a second node given the same SKEIN_NODE_URL
 * refuses to start and the first keeps its sessions; a node restarted at its address takes its
 * sessions back at once), and SIGTERM with streams relayed through the node or from it: the node
 * exits in seconds, the streams end, clients resume on another node, and a running turn is
 * handed to the next owner instead of holding the exit for the drain timeout.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import { HeadSigner } from "../../src/log/head-signer.js";
import { deliver, hang, text, toolCalls } from "../support/fake-provider/reply.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { type DaemonHarness, skeinBin, sleep, userTexts } from "./support/daemon-harness.js";
import { eventually } from "./support/fixture.js";
import { TestCluster } from "./support/test-cluster.js";

describe("operating a cluster", () => {
  const fake = withFakeProvider();
  let cluster: TestCluster;

  afterEach(async () => {
    await cluster?.close();
  });

  it("refuses a second live node at one SKEIN_NODE_URL, loudly, and the first keeps its running turn", async () => {
    cluster = new TestCluster(fake());
    const [a] = await cluster.start(1, 2);
    fake().script = () => deliver(text(["a ", "slow ", "healthy ", "answer"]), { delayMs: 800 });
    const sessionId = await a!.createSession();
    const inputId = uuidv7();
    await a!.prompt(sessionId, "a turn on A", inputId);
    await fake().waitForRequests(1);
    // The default URL on two machines with the same port is exactly this: one URL, two nodes.
    const started = Date.now();
    const refusal = await cluster
      .add({ env: { SKEIN_NODE_URL: `http://127.0.0.1:${a!.port}` } })
      .then(() => null)
      .catch((error: unknown) => error as Error);
    expect(refusal?.message).toMatch(/exited with 1/);
    expect(refusal?.message).toMatch(
      /is already the address of live node .*two nodes cannot share one address/,
    );
    expect(Date.now() - started).toBeLessThan(2_000 + 5_000);
    await a!.idle(sessionId);
    expect((await a!.receipt(sessionId, inputId)).turn?.state).toBe("completed");
    expect(await cluster.ownerOf(sessionId)).toBe(await cluster.nodeIdOf(a!));
    const listed = (await a!.api("/cluster")).json<{ nodes: Array<{ self: boolean; live: boolean }> }>();
    expect(listed.nodes.find((node) => node.self)?.live).toBe(true);
    expect(a!.readLog()).not.toMatch(/lease lost|write fenced|marked stopped/);
  });

  it("takes its sessions back at once when a node restarts at its address after a crash, long before the lease ends", async () => {
    cluster = new TestCluster(fake());
    const [a] = await cluster.start(1, 60);
    fake().script = (request) => (request.index === 0 ? hang() : text(`answer ${request.index}`));
    const sessionId = await a!.createSession();
    const cut = uuidv7();
    await a!.prompt(sessionId, "cut short", cut);
    await fake().waitForRequests(1);
    await a!.restart({ crash: true });
    const restartedAt = Date.now();
    await a!.idle(sessionId, 10_000);
    expect(Date.now() - restartedAt).toBeLessThan(10_000);
    expect((await a!.receipt(sessionId, cut)).turn?.state).toBe("abandoned");
    expect(a!.readLog()).toMatch(/previous daemon .* marked stopped/);
  });

  it("waits on SIGTERM for a running tool before it hands the turn off, so the tool's outcome is known", async () => {
    cluster = new TestCluster(fake());
    const [a, b] = await cluster.start(2, 2);
    const command = "echo started > started.txt; sleep 2; echo done > done.txt";
    fake().queue(toolCalls([{ name: "run_command", args: { command }, id: "call_slow" }]));
    fake().script = () => text("after the tool");
    const sessionId = await a!.createSession();
    await b!.prompt(sessionId, "run the slow command");
    await eventually("the command to start", () =>
      existsSync(join(a!.workspace, "started.txt")) ? true : undefined,
    );
    const started = Date.now();
    expect(await a!.signal("SIGTERM", 20_000)).toBe(0);
    // It waited for the tool (about 2 s), not for the rest of the turn.
    expect(Date.now() - started).toBeGreaterThan(1_000);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(readFileSync(join(a!.workspace, "done.txt"), "utf8")).toBe("done\n");
    await b!.idle(sessionId, 15_000);
    const results = (await b!.history(sessionId)).items.filter((entry) => entry.kind === "tool_result");
    expect(results).toHaveLength(1);
    expect(JSON.stringify(results[0]!.content)).not.toMatch(/outcome is unknown/);
  });

  it("shows in GET /cluster each node's heartbeat lag and whether its profiles match, warns of other profiles, and drops nodes gone for SKEIN_NODE_HISTORY_SECONDS", async () => {
    cluster = new TestCluster(fake());
    const [a, b, c] = await cluster.start(3, 2, () => ({ env: { SKEIN_NODE_HISTORY_SECONDS: "3" } }));
    type Listed = {
      nodes: Array<{
        id: string;
        live: boolean;
        heartbeat_age_ms: number;
        stopped_at: string | null;
        last_error: unknown;
        profiles_digest: string | null;
        profiles_match: boolean;
      }>;
    };
    const before = (await a!.api("/cluster")).json<Listed>();
    expect(before.nodes).toHaveLength(3);
    for (const node of before.nodes) {
      expect(node.heartbeat_age_ms).toBeLessThan(2_000);
      expect(node.profiles_digest).toMatch(/^[0-9a-f]{16}$/);
      expect(node.profiles_match).toBe(true);
      expect(node.last_error).toBeNull();
      expect(node.stopped_at).toBeNull();
    }
    // B's config.json changes: another model. It publishes that with its next heartbeat.
    b!.writeProviders({
      other: { protocol: "chat_completions", baseUrl: fake().baseUrlWith("v1"), model: "another-model" },
    });
    const bId = await cluster.nodeIdOf(b!);
    await eventually("A to see B's other profiles", async () => {
      const listed = (await a!.api("/cluster")).json<Listed>();
      return listed.nodes.find((node) => node.id === bId)?.profiles_match === false ? true : undefined;
    });
    await eventually("a warning of the different profiles", () =>
      /other provider profiles than this one/.test(a!.readLog()) ? true : undefined,
    );
    // C stops: listed as stopped, then dropped after the history time.
    const cId = await cluster.nodeIdOf(c!);
    await c!.shutdown();
    const stopped = (await a!.api("/cluster")).json<Listed>().nodes.find((node) => node.id === cId);
    expect(stopped?.live).toBe(false);
    expect(stopped?.stopped_at).not.toBeNull();
    await eventually(
      "C to be dropped from the listing",
      async () =>
        (await a!.api("/cluster")).json<Listed>().nodes.some((node) => node.id === cId) ? undefined : true,
      8_000,
    );
  });

  it("warns at start when the other live nodes do not trust the new node's head-signing key", async () => {
    cluster = new TestCluster(fake());
    const [a] = await cluster.start(1, 2);
    const b = await cluster.add({ signingKeyPem: HeadSigner.generate().privateKeyPem() });
    await eventually("B to hear that A does not trust its key", () =>
      /a live node of this cluster does not trust this node's head-signing key/.test(b.readLog())
        ? true
        : undefined,
    );
    // A says the same from its side. C shares A's key: only B (which trusts neither) is named.
    await eventually("A to warn of B's key", () =>
      /signs session heads with a key this node does not trust/.test(a!.readLog()) ? true : undefined,
    );
    const c = await cluster.add();
    const [aId, bId] = [await cluster.nodeIdOf(a!), await cluster.nodeIdOf(b)];
    const distrusting = async () =>
      c
        .readLog()
        .split("\n")
        .filter((line) => line.includes("does not trust this node's head-signing key"))
        .map((line) => (JSON.parse(line) as { node: string }).node);
    await eventually("C to hear from B", async () =>
      (await distrusting()).includes(bId) ? true : undefined,
    );
    await sleep(500);
    expect(await distrusting()).not.toContain(aId);
  });

  it("refuses a turn on a node where the session's workspace does not exist, saying that every node needs it", async () => {
    cluster = new TestCluster(fake());
    const [a, b] = await cluster.start(2, 2);
    const workspace = join(a!.root, "not-shared");
    mkdirSync(workspace);
    const sessionId = await a!.createSession({ workspace });
    await a!.turn(sessionId, "while it exists");
    rmSync(workspace, { recursive: true });
    const stream = await b!.openStream(sessionId);
    await stream.next();
    const inputId = uuidv7();
    await b!.prompt(sessionId, "after it is gone", inputId);
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();
    const error = frames.flatMap((frame) => frame.batch.events).find((event) => event.type === "error");
    expect(error?.data.code).toBe("workspace_refused");
    expect(String(error?.data.message)).toContain(
      `is not a directory on the node that runs this session's turns (http://127.0.0.1:${a!.port})`,
    );
    expect((await b!.receipt(sessionId, inputId)).turn?.state).toBe("failed");
  });

  it("says where a turn's checkpoints are when skein diff asks a node that did not run it", async () => {
    cluster = new TestCluster(fake());
    const [a, b] = await cluster.start(2, 2);
    fake().queue(toolCalls([{ name: "write_file", args: { path: "made.txt", content: "x" }, id: "call_w" }]));
    fake().script = () => text("wrote it");
    const sessionId = await a!.createSession();
    await b!.turn(sessionId, "write a file");
    expect(existsSync(join(a!.home, "checkpoints", `${sessionId}.git`, "HEAD"))).toBe(true);
    const diff = (node: DaemonHarness) =>
      spawnSync(process.execPath, [skeinBin, "diff", sessionId], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: node.root, SKEIN_HOME: node.home },
        encoding: "utf8",
      });
    const onB = diff(b!);
    expect(onB.status).toBe(4);
    expect(onB.stderr).toContain(`no workspace checkpoints in ${b!.home}`);
    expect(onB.stderr).toMatch(
      /node of a cluster, and each turn's checkpoints stay in the home of the node that ran it/,
    );
    const onA = diff(a!);
    expect(onA.status).toBe(0);
    expect(onA.stdout).toContain("made.txt");
  });

  it("exits at once on SIGTERM while it relays a client's stream: the stream ends and the client resumes on the owner", async () => {
    cluster = new TestCluster(fake());
    const [a, b] = await cluster.start(2, 2);
    const sessionId = await a!.createSession();
    await a!.turn(sessionId, "before");
    const throughB = await b!.openStream(sessionId);
    const first = await throughB.next();
    const started = Date.now();
    expect(await b!.signal("SIGTERM", 20_000)).toBe(0);
    const exitMs = Date.now() - started;
    await throughB.waitClosed(1_000);
    expect(exitMs).toBeLessThan(3_000);
    // Resumed on the owner with the cursor it had: the same generation, nothing missed.
    const onA = await a!.openStream(sessionId, {
      after: { generation: first.batch.generation, cursor: first.batch.cursor },
    });
    const resumed = await onA.next();
    expect(resumed.batch.generation).toBe(first.batch.generation);
    expect(resumed.batch.snapshot).toBeUndefined();
    onA.close();
  });

  it("hands a running turn off on SIGTERM without waiting for it, ending the streams relayed from it", async () => {
    cluster = new TestCluster(fake());
    const [a, b] = await cluster.start(2, 2);
    fake().script = (request) => (request.index === 0 ? hang() : text(`answer ${request.index}`));
    const sessionId = await a!.createSession();
    const throughB = await b!.openStream(sessionId);
    const before = (await throughB.next()).batch.generation;
    const cut = uuidv7();
    await b!.prompt(sessionId, "running when A stops", cut);
    await fake().waitForRequests(1);
    const started = Date.now();
    expect(await a!.signal("SIGTERM", 40_000)).toBe(0);
    const exitMs = Date.now() - started;
    await throughB.waitClosed(1_000);
    expect(exitMs).toBeLessThan(3_000);
    // B took the session at once (released, not expired) and recovered the turn as after a crash.
    await eventually("B to own the session", async () =>
      (await cluster.ownerOf(sessionId)) === (await cluster.nodeIdOf(b!)) ? true : undefined,
    );
    await b!.idle(sessionId, 10_000);
    expect((await b!.receipt(sessionId, cut)).turn?.state).toBe("abandoned");
    const again = await b!.openStream(sessionId, { after: { generation: before, cursor: 1 } });
    expect((await again.next()).batch.generation).not.toBe(before);
    again.close();
    await b!.turn(sessionId, "after the hand-off");
    expect(userTexts((await b!.history(sessionId)).items)).toEqual([
      "running when A stops",
      "after the hand-off",
    ]);
  });
});
