/**
 * Subagents end to end, against the real daemon process and the fake provider: a parent's two
 * `task` calls in one batch run in parallel as child sessions and their answers come back in
 * the parent's next request (two wire protocols); SIGKILL while both children stream → after
 * the restart each child finishes without a turn run twice and the parent completes; the depth
 * and parallel limits; an interrupt of the parent stops its children; usage rolls up.
 */
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest, Script } from "../support/fake-provider/server.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

/** Agents whose prompts mark their children's requests (the parent's carry only descriptions). */
const agents = {
  alpha: { description: "Looks things up (alpha).", prompt: "MARK-ALPHA: you look things up." },
  beta: { description: "Checks things (beta).", prompt: "MARK-BETA: you check things." },
};

interface Summary {
  id: string;
  parent_id: string | null;
  parent_call_id: string | null;
  agent: string | null;
}

interface Snapshot extends Summary {
  status: { phase: string };
  usage: { total_tokens: number };
  usage_total: { total_tokens: number };
  context: { cost_usd: number | null } | null;
  cost_total_usd: number | null;
}

/** Which session a request is of: a child (by its agent's mark) or the parent. */
function whose(request: RecordedRequest): "alpha" | "beta" | "parent" {
  if (request.rawBody.includes("MARK-ALPHA")) return "alpha";
  if (request.rawBody.includes("MARK-BETA")) return "beta";
  return "parent";
}

/** The parent delegates to alpha and beta in one batch, then answers; children answer slowly. */
function delegating(childDelayMs: number, deltas = 6): Script {
  return (request) => {
    const who = whose(request);
    if (who === "parent") {
      if (request.rawBody.includes("ANSWER-ALPHA")) return text("parent done");
      return toolCalls([
        { name: "task", args: { agent: "alpha", prompt: "find A" }, id: "call_a" },
        { name: "task", args: { agent: "beta", prompt: "check B" }, id: "call_b" },
      ]);
    }
    const answer = who === "alpha" ? "ANSWER-ALPHA 42" : "ANSWER-BETA ok";
    const pieces = Array.from({ length: deltas }, (_, i) => (i === deltas - 1 ? answer : "."));
    return text(pieces, { delivery: { delayMs: childDelayMs } });
  };
}

describe("subagents (task)", () => {
  const fake = useFakeProvider();

  /** A parent that delegated to alpha and beta, once both children's first requests arrived. */
  async function delegatingWhileChildrenStream(delayMs: number, deltas: number) {
    const app = await fake.daemon({ config: { agents } }, delegating(delayMs, deltas));
    const parentId = await app.createSession();
    await app.prompt(parentId, "delegate");
    await eventually("both children streaming", async () => {
      const who = fake.provider.requests.map(whose);
      return who.includes("alpha") && who.includes("beta") ? true : undefined;
    });
    return { app, parentId };
  }

  async function children(app: DaemonHarness, parentId: string): Promise<Summary[]> {
    const response = await app.api(`/sessions?parent_id=${parentId}`);
    expect(response.status).toBe(200);
    return response.json<{ items: Summary[] }>().items;
  }

  async function snapshot(app: DaemonHarness, id: string): Promise<Snapshot> {
    const response = await app.api(`/sessions/${id}?tail=0`);
    expect(response.status).toBe(200);
    return response.json<Snapshot>();
  }

  const variants = [
    { protocol: "chat_completions", database: "sqlite" },
    { protocol: "anthropic", database: "postgres" },
  ] as const;
  for (const { protocol, database } of variants) {
    it(`runs two task calls of one batch in parallel as child sessions and hands their answers back (${protocol}, ${database})`, async () => {
      const providers =
        protocol === "anthropic"
          ? { fx: { protocol, baseUrl: fake.provider.baseUrl, apiKey: "k", model: "claude-sonnet-4-5" } }
          : undefined;
      const app = await fake.daemon(
        { config: { agents }, database, ...(providers === undefined ? {} : { providers }) },
        delegating(60),
      );
      const parentId = await app.createSession();
      const stream = await app.openStream(parentId);
      await app.prompt(parentId, "delegate");
      await app.idle(parentId, 30_000);

      const requests = fake.provider.requests;
      const alpha = requests.filter((request) => whose(request) === "alpha");
      const beta = requests.filter((request) => whose(request) === "beta");
      expect(alpha).toHaveLength(1);
      expect(beta).toHaveLength(1);
      // Parallel: each child's request arrived before the other's answer was finished.
      expect(alpha[0]!.receivedAt).toBeLessThan(beta[0]!.finishedAt!);
      expect(beta[0]!.receivedAt).toBeLessThan(alpha[0]!.finishedAt!);
      const parentRequests = requests.filter((request) => whose(request) === "parent");
      expect(parentRequests).toHaveLength(2);
      expect(parentRequests[1]!.rawBody).toContain("ANSWER-ALPHA 42");
      expect(parentRequests[1]!.rawBody).toContain("ANSWER-BETA ok");
      // The parent's model was told of the agents in the tool's description.
      expect(parentRequests[0]!.rawBody).toContain("Looks things up (alpha).");

      const kids = await children(app, parentId);
      expect(kids.map((kid) => kid.agent).sort()).toEqual(["alpha", "beta"]);
      for (const kid of kids) {
        expect(kid.parent_id).toBe(parentId);
        expect(["call_a", "call_b"]).toContain(kid.parent_call_id);
      }
      const frames = await stream.readUntil(
        (event) => event.type === "turn_completed" && (event.data as { state: string }).state === "completed",
      );
      const events = eventsOf(frames);
      const started = events.filter((event) => event.type === "task_started").map((event) => event.data);
      const completed = events.filter((event) => event.type === "task_completed").map((event) => event.data);
      expect(started).toHaveLength(2);
      expect(completed).toHaveLength(2);
      expect(completed[0]).toMatchObject({ state: "completed" });

      // Usage rolls up: the parent's total counts its children's.
      const parent = await snapshot(app, parentId);
      const childTokens = (await Promise.all(kids.map((kid) => snapshot(app, kid.id)))).reduce(
        (sum, kid) => sum + kid.usage.total_tokens,
        0,
      );
      expect(childTokens).toBeGreaterThan(0);
      expect(parent.usage_total.total_tokens).toBe(parent.usage.total_tokens + childTokens);
      // So does cost, where the model's prices are known (Claude's are; the fixture model's not).
      const kidSnapshots = await Promise.all(kids.map((kid) => snapshot(app, kid.id)));
      if (protocol === "anthropic") {
        const kidCosts = kidSnapshots.reduce((sum, kid) => sum + (kid.context?.cost_usd ?? Number.NaN), 0);
        expect(kidCosts).toBeGreaterThan(0);
        expect(parent.cost_total_usd).toBeCloseTo(parent.context!.cost_usd! + kidCosts, 6);
      } else {
        expect(parent.cost_total_usd).toBe(parent.context?.cost_usd ?? null);
      }
    });
  }

  it("survives SIGKILL while both children stream: each child finishes once, the parent completes, chains verify", async () => {
    const { app, parentId } = await delegatingWhileChildrenStream(150, 40);
    await app.restart({ crash: true });
    await app.idle(parentId, 60_000);

    const kids = await children(app, parentId);
    expect(kids).toHaveLength(2);
    for (const kid of kids) {
      await app.idle(kid.id, 30_000);
      // One task input per child: the re-run call found the child and its input.
      const inputs = await app.sql<{ id: string }>("SELECT id FROM inputs WHERE session = ?", [kid.id]);
      expect(inputs).toHaveLength(1);
      expect((await app.api(`/sessions/${kid.id}/verify`)).json()).toMatchObject({ status: "verified" });
    }
    const parentRequests = fake.provider.requests.filter((request) => whose(request) === "parent");
    const last = parentRequests[parentRequests.length - 1]!;
    expect(last.rawBody).toContain("ANSWER-ALPHA 42");
    expect(last.rawBody).toContain("ANSWER-BETA ok");
    // The parent's task calls were run again, not answered "outcome unknown", and the model
    // was asked for them once (its one tool batch).
    expect(last.rawBody).not.toContain("outcome is unknown");
    expect(parentRequests).toHaveLength(2);
    // No child turn ran twice: a child's request after the restart continues the cut turn
    // (restart note), and after its answer no request of that child follows.
    for (const who of ["alpha", "beta"] as const) {
      const mine = fake.provider.requests.filter((request) => whose(request) === who);
      expect(mine.length).toBeLessThanOrEqual(2);
      const answered = mine.findIndex(
        (request) => request.finishedAt !== undefined && !request.clientAborted,
      );
      expect(answered).toBe(mine.length - 1);
    }
    expect((await app.api(`/sessions/${parentId}/verify`)).json()).toMatchObject({ status: "verified" });
  }, 60_000);

  it("relays a child's approval to the parent's stream, keeps it waiting across SIGKILL, and completes once it is answered (its answer relayed too)", async () => {
    const gamma = { description: "Runs things (gamma).", prompt: "MARK-GAMMA: you run things." };
    const script: Script = (request) => {
      const body = request.rawBody;
      if (body.includes("MARK-GAMMA")) {
        if (body.includes("call_g") && body.includes('"role":"tool"')) return text("ANSWER-GAMMA done");
        return toolCalls([
          { name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_g" },
        ]);
      }
      if (whose(request) === "alpha")
        return text(
          Array.from({ length: 60 }, () => "."),
          { delivery: { delayMs: 150 } },
        );
      if (body.includes("ANSWER-GAMMA")) return text("parent done");
      return toolCalls([
        { name: "task", args: { agent: "alpha", prompt: "find A" }, id: "call_a" },
        { name: "task", args: { agent: "gamma", prompt: "run it" }, id: "call_c" },
      ]);
    };
    // The built-in policy: the child's command waits for a person.
    const app = await fake.daemon(
      { config: { agents: { ...agents, gamma }, approvalPolicy: undefined } },
      script,
    );
    const parentId = await app.createSession();
    const stream = await app.openStream(parentId);
    await app.prompt(parentId, "delegate");
    const frames = await stream.readUntil((event) => event.type === "approval_requested", 20_000);
    const relayed = eventsOf(frames).find((event) => event.type === "approval_requested")!.data as {
      call_id: string;
      session_id?: string;
    };
    const gammaChild = (await children(app, parentId)).find((kid) => kid.agent === "gamma")!;
    expect(relayed).toMatchObject({ call_id: "call_g", session_id: gammaChild.id });
    stream.close();
    await eventually("alpha streaming", async () =>
      fake.provider.requests.some((request) => whose(request) === "alpha") ? true : undefined,
    );

    await app.restart({ crash: true });
    // After the restart the parent's new stream tells of the waiting call again.
    const parent = await snapshot(app, parentId);
    const generation = (parent as unknown as { cursor: { generation: string } }).cursor.generation;
    const again = await app.openStream(parentId, { after: { generation, cursor: 0 } });
    const replayed = await again.readUntil(
      (event) =>
        event.type === "approval_requested" &&
        (event.data as { session_id?: string }).session_id !== undefined,
      20_000,
    );
    expect(eventsOf(replayed).some((event) => event.type === "approval_requested")).toBe(true);
    const answer = await app.api(`/sessions/${relayed.session_id}/approvals/call_g`, {
      method: "POST",
      body: { decision: "allow" },
    });
    expect(answer.status).toBe(200);
    // The answer is relayed too, so the parent's watchers drop the call.
    await again.readUntil(
      (event) =>
        event.type === "approval_resolved" &&
        (event.data as { session_id?: string }).session_id === relayed.session_id,
      10_000,
    );
    again.close();
    await app.idle(parentId, 60_000);
    const last = fake.provider.requests.filter((request) => whose(request) === "parent").at(-1)!;
    expect(last.rawBody).toContain("ANSWER-GAMMA done");
    const gammaRequests = fake.provider.requests.filter((request) => request.rawBody.includes("MARK-GAMMA"));
    expect(gammaRequests).toHaveLength(2);
    expect((await app.api(`/sessions/${gammaChild.id}/verify`)).json()).toMatchObject({ status: "verified" });
  }, 90_000);

  it("forks the child from the parent's conversation before the call when the context is fork, with its agent's model, mode and tools", async () => {
    const script: Script = (request) => {
      if (whose(request) === "alpha") return text("ANSWER-ALPHA forked");
      if (request.rawBody.includes("ANSWER-ALPHA")) return text("parent done");
      if (!request.rawBody.includes("now delegate")) return text("noted");
      return toolCalls([
        { name: "task", args: { agent: "alpha", prompt: "go on", context: "fork" }, id: "call_f" },
      ]);
    };
    // The parent runs in full-auto with all tools; the agent asks for read-only, one tool, its model.
    const alpha = { ...agents.alpha, mode: "read-only", tools: ["read_file"], model: "fork-model" };
    const app = await fake.daemon({ config: { agents: { ...agents, alpha } } }, script);
    const parentId = await app.createSession();
    const mode = await app.api(`/sessions/${parentId}/approval-policy`, {
      method: "PUT",
      body: { mode: "full-auto" },
    });
    expect(mode.status).toBe(200);
    await app.turn(parentId, "remember SECRET-42");
    await app.prompt(parentId, "now delegate");
    await app.idle(parentId, 30_000);
    const child = fake.provider.requests.find((request) => whose(request) === "alpha")!;
    // The child read the parent's conversation, and its task with the agent's prompt.
    expect(child.rawBody).toContain("SECRET-42");
    expect(child.rawBody).toContain("now delegate");
    expect(child.rawBody).toContain("go on");
    expect(JSON.parse(child.rawBody).model).toBe("fork-model");
    expect(child.rawBody).toContain('"name":"read_file"');
    expect(child.rawBody).not.toContain('"name":"run_command"');
    const [kid] = await children(app, parentId);
    const snap = (await app.api(`/sessions/${kid!.id}?tail=0`)).json<{
      creation: { kind: string };
      parent_call_id: string;
      agent: string;
      approval_mode: string;
      model: string;
    }>();
    expect(snap).toMatchObject({
      creation: { kind: "fork" },
      parent_call_id: "call_f",
      agent: "alpha",
      approval_mode: "read-only",
      model: "fork-model",
    });
    const parent = (await app.api(`/sessions/${parentId}?tail=0`)).json<{ approval_mode: string }>();
    expect(parent.approval_mode).toBe("full-auto");
  });

  it("keeps a child from delegating at the default depth limit, saying so when it calls task anyway, and runs one task at a time with maxParallelTasks 1", async () => {
    const base = delegating(40);
    // Alpha calls `task` although it is not offered; its next request carries the answer.
    const script: Script = (request) =>
      whose(request) === "alpha" && !request.rawBody.includes("call_deep")
        ? toolCalls([{ name: "task", args: { agent: "beta", prompt: "deeper" }, id: "call_deep" }])
        : base(request);
    const app = await fake.daemon({ config: { agents, maxParallelTasks: 1 } }, script);
    const parentId = await app.createSession();
    await app.prompt(parentId, "delegate");
    await app.idle(parentId, 30_000);
    const requests = fake.provider.requests;
    const alpha = requests.find((request) => whose(request) === "alpha")!;
    const beta = requests.find((request) => whose(request) === "beta")!;
    const [first, second] = alpha.receivedAt < beta.receivedAt ? [alpha, beta] : [beta, alpha];
    // One at a time: the second child started only after the first's answer was out.
    expect(second.receivedAt).toBeGreaterThanOrEqual(first.finishedAt!);
    // Depth 1: the parent is offered `task`, its children are not.
    const offersTask = (request: RecordedRequest) => /"name":"task"/.test(request.rawBody);
    expect(offersTask(requests.find((request) => whose(request) === "parent")!)).toBe(true);
    expect(offersTask(alpha)).toBe(false);
    expect(offersTask(beta)).toBe(false);
    const answered = requests.filter((request) => whose(request) === "alpha")[1]!;
    expect(answered.rawBody).toContain("task was not run: task depth limit 1 reached");
    expect(answered.rawBody).not.toContain("Tool not found");
    // No grandchild was made for it.
    expect(
      requests.filter((request) => whose(request) === "beta" && request.rawBody.includes("deeper")),
    ).toEqual([]);
  });

  it("interrupts the running children when the parent is interrupted", async () => {
    const { app, parentId } = await delegatingWhileChildrenStream(200, 200);
    const parent = await app.api(`/sessions/${parentId}?tail=0`);
    const runId = parent.json<{ status: { run_id: string } }>().status.run_id;
    const interrupted = await app.api(`/sessions/${parentId}/interrupt`, {
      method: "POST",
      body: { run_id: runId, through_input_order: 0 },
    });
    expect(interrupted.status).toBe(200);
    await app.idle(parentId, 20_000);
    const kids = await children(app, parentId);
    expect(kids).toHaveLength(2);
    for (const kid of kids) {
      await app.idle(kid.id, 20_000);
      const turns = await app.sql<{ state: string }>("SELECT state FROM turns WHERE session = ?", [kid.id]);
      expect(turns.map((turn) => turn.state)).toEqual(["interrupted"]);
    }
  });
});
