/**
 * The crash torture: cycle after cycle, a few fresh sessions get inputs (some making tool calls
 * whose runs the test can count, see support/torture-model.ts) and the real daemon is SIGKILLed
 * at a random moment of a chosen phase — while inputs are admitted, mid-stream, mid-tool, as a
 * turn ends, anywhere, or during a restart's recovery — then started again. After each cycle,
 * every session must hold the invariants of support/torture-invariants.ts and complete a turn
 * for a new input; at the end, every session of every cycle is checked once more.
 *
 * The cycles fill a time budget (SKEIN_TORTURE_SECONDS, default 45) with at least 15 kills.
 * The random choices come from a seed printed at the start; SKEIN_TORTURE_SEED=<seed> replays
 * them (the timing of the process itself cannot be replayed, the choices can).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeProvider } from "../support/fake-provider/server.js";
import { DaemonHarness, type HistoryEntry, type Receipt, sleep } from "./support/daemon-harness.js";
import { entryText, eventually, profileFor } from "./support/fixture.js";
import { SeededRandom, seedFromEnvironment } from "./support/seeded-random.js";
import type { SseConnection } from "./support/sse-client.js";
import { checkSession, type SentInput, type TrackedSession } from "./support/torture-invariants.js";
import {
  effectsFile,
  type InputPlan,
  type PlannedTool,
  promptFor,
  tortureModel,
} from "./support/torture-model.js";

/** Where in a session's life the kill lands. */
type KillPhase = "admission" | "stream" | "tool" | "turn_end" | "recovery" | "anywhere";

const phases: readonly KillPhase[] = ["admission", "stream", "tool", "turn_end", "recovery", "anywhere"];
const budgetMs = Number(process.env.SKEIN_TORTURE_SECONDS ?? "45") * 1000;
const minimumKills = 15;
const sessionsPerCycle = 3;
/** Generous, for a loaded 2-core machine: how long a session may take to be idle again. */
const idleTimeoutMs = 90_000;
/** How long a cycle may wait for its kill moment (the phase's event) before that is a failure. */
const momentTimeoutMs = 30_000;

/** One input to send, when (after the cycle starts), and to which session. */
interface PlannedSend {
  session: TrackedSession;
  input: SentInput;
  offsetMs: number;
}

/** Everything a cycle decided up front from the seed. */
interface CyclePlan {
  index: number;
  phase: KillPhase;
  sessions: TrackedSession[];
  sends: PlannedSend[];
  /** After the phase's event: how long to wait before the kill. */
  killDelayMs: number;
  /** The recovery phase: when to kill again, as a share (0..1.5) of a typical start-up. */
  restartKillShare: number;
}

/** A violated invariant, with the seed, cycle and phase it was seen in. */
class TortureFailure extends Error {
  override name = "TortureFailure";
}

/** Minimum, median and maximum of `values`, as text. */
function spread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `min ${sorted[0]}, median ${sorted[Math.floor(sorted.length / 2)]}, max ${sorted.at(-1)}`;
}

describe("crash torture", () => {
  const seed = seedFromEnvironment();
  const random = new SeededRandom(seed);
  let provider: FakeProvider;
  let app: DaemonHarness;
  /** How long a start-up takes here (the latest measured), to aim kills during recovery. */
  let bootMs = 0;
  /** Inputs whose first PUT got no answer, and how many of them the daemon had admitted. */
  const cut = { inputs: 0, admitted: 0 };

  beforeAll(async () => {
    provider = await FakeProvider.start();
    provider.script = tortureModel;
    const started = Date.now();
    app = await DaemonHarness.start({ providers: profileFor(provider) });
    bootMs = Date.now() - started;
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  function newInput(
    session: TrackedSession,
    label: string,
    plan: InputPlan,
    mustComplete: boolean,
  ): SentInput {
    const input: SentInput = {
      id: uuidv7(),
      text: promptFor(label, plan),
      label,
      firstAnswer: "cut",
      acceptanceOrder: null,
      mustComplete,
    };
    session.inputs.push(input);
    return input;
  }

  function randomTool(): PlannedTool {
    const kind = random.pick(["append_then_sleep", "sleep_then_append", "write"] as const);
    return kind === "write" ? { kind } : { kind, sleepMs: random.int(0, 250) };
  }

  async function planCycle(index: number, phase: KillPhase): Promise<CyclePlan> {
    const sessions: TrackedSession[] = [];
    const sends: PlannedSend[] = [];
    for (let k = 0; k < sessionsPerCycle; k++) {
      const tag = `c${index}s${k}`;
      const workspace = join(app.workspace, tag);
      mkdirSync(workspace);
      const session: TrackedSession = {
        id: await app.createSession({ workspace }),
        tag,
        workspace,
        inputs: [],
      };
      sessions.push(session);
      const count = random.int(1, 3);
      for (let n = 0; n < count; n++) {
        const tools = Array.from({ length: random.pick([0, 1, 1, 2, 3]) }, randomTool);
        // The tool phase needs a command that is surely running when the kill comes.
        if (phase === "tool" && k === 0 && n === 0)
          tools.unshift({ kind: "append_then_sleep", sleepMs: 600 });
        const plan: InputPlan = { tools, eventDelayMs: random.int(0, 25) };
        const input = newInput(session, `${tag}i${n}`, plan, false);
        const first = phase === "admission" || phase === "tool" || n === 0;
        sends.push({ session, input, offsetMs: first ? 0 : random.int(0, 400) });
      }
    }
    const killDelayMs = {
      admission: random.int(0, 15),
      stream: random.int(0, 250),
      tool: random.int(0, 450),
      turn_end: random.int(0, 4),
      recovery: random.int(0, 250),
      anywhere: random.int(0, 1_200),
    }[phase];
    return { index, phase, sessions, sends, killDelayMs, restartKillShare: random.int(0, 150) / 100 };
  }

  /** PUT one input; records how it ended, or returns a violation. */
  async function send(input: SentInput, sessionId: string): Promise<string | null> {
    const put = app.api(`/sessions/${sessionId}/inputs/${input.id}`, {
      method: "PUT",
      body: { kind: "message", text: input.text },
    });
    const answer = await Promise.race([
      put.catch(() => "cut" as const),
      sleep(momentTimeoutMs).then(() => "hung" as const),
    ]);
    if (answer === "hung") return `PUT of input ${input.label} got no answer within ${momentTimeoutMs} ms`;
    // No answer (the daemon died with the request) or one from a daemon that was just restarted
    // (an old token, or not ready yet): whether it was admitted is read back after the restart.
    if (answer === "cut" || answer.status === 401 || answer.status === 503) return null;
    if (answer.status !== 202) return `PUT of input ${input.label} answered ${answer.status}: ${answer.text}`;
    input.firstAnswer = "acknowledged";
    input.acceptanceOrder = answer.json<Receipt>().acceptance_order;
    return null;
  }

  /** Wait for the phase's moment, then SIGKILL the daemon. */
  async function killAt(
    plan: CyclePlan,
    requestsBefore: number,
    watcher: SseConnection | null,
  ): Promise<void> {
    const what = `the ${plan.phase} moment of cycle ${plan.index}`;
    switch (plan.phase) {
      case "admission":
      case "anywhere":
        break;
      case "stream":
      case "recovery":
        await eventually(
          what,
          () => (provider.requests.length > requestsBefore ? true : undefined),
          momentTimeoutMs,
        );
        break;
      case "tool": {
        const effects = join(plan.sessions[0]!.workspace, effectsFile);
        await eventually(what, () => (existsSync(effects) ? true : undefined), momentTimeoutMs);
        break;
      }
      case "turn_end":
        // The final answer is committed; the turn's end is written right after it.
        await watcher!.readUntil((event) => {
          const entry = event.type === "message" ? (event.data.entry as HistoryEntry) : undefined;
          return entry?.kind === "assistant" && entryText(entry).startsWith("done");
        }, momentTimeoutMs);
        break;
      default: {
        const unknown: never = plan.phase;
        throw new Error(`unknown phase ${unknown}`);
      }
    }
    await sleep(plan.killDelayMs);
    await app.kill();
  }

  /** Start the daemon again; in the recovery phase, kill it once more while it recovers. Returns the extra kills. */
  async function restart(plan: CyclePlan): Promise<number> {
    if (plan.phase !== "recovery") {
      await boot();
      return 0;
    }
    const booting = boot();
    await sleep(Math.round(plan.restartKillShare * bootMs));
    await app.kill();
    // Killed before it was ready (recovery inside the start-up) or after (recovery turns running).
    await booting.catch((error: unknown) => {
      if (!String(error).includes("before it was ready")) throw error;
    });
    await boot();
    return 1;
  }

  async function boot(): Promise<void> {
    const started = Date.now();
    await app.boot();
    bootMs = Date.now() - started;
  }

  /**
   * After the restart: an input whose PUT got no answer is read back (admitted before the kill or
   * not) and sent again, which must be idempotent: the same acceptance order when it was admitted.
   */
  async function settle(session: TrackedSession, input: SentInput): Promise<string | null> {
    if (input.firstAnswer !== "cut") return null;
    const before = await app.api(`/sessions/${session.id}/inputs/${input.id}`);
    if (before.status !== 200 && before.status !== 404) {
      return `the receipt of cut input ${input.label} answered ${before.status}: ${before.text}`;
    }
    const admitted = before.status === 200 ? before.json<Receipt>().acceptance_order : null;
    cut.inputs++;
    if (admitted !== null) cut.admitted++;
    const again = await app.api(`/sessions/${session.id}/inputs/${input.id}`, {
      method: "PUT",
      body: { kind: "message", text: input.text },
    });
    if (again.status !== 202)
      return `re-sending cut input ${input.label} answered ${again.status}: ${again.text}`;
    input.acceptanceOrder = again.json<Receipt>().acceptance_order;
    if (admitted !== null && input.acceptanceOrder !== admitted) {
      return `re-sending cut input ${input.label} changed its acceptance order from ${admitted} to ${input.acceptanceOrder}`;
    }
    return null;
  }

  async function idle(session: TrackedSession): Promise<string | null> {
    try {
      await app.idle(session.id, idleTimeoutMs);
      return null;
    } catch (error) {
      return `session ${session.tag} (${session.id}): ${String(error)}`;
    }
  }

  function failure(plan: { index: number; phase: string }, problems: readonly string[]): TortureFailure {
    const log = app.readLog().trimEnd().split("\n").slice(-30).join("\n");
    return new TortureFailure(
      `crash torture: seed ${seed} (replay with SKEIN_TORTURE_SEED=${seed}), cycle ${plan.index}, phase ${plan.phase}:\n` +
        `${problems.map((problem) => `  - ${problem}`).join("\n")}\nlast lines of the daemon log:\n${log}`,
    );
  }

  /** One cycle: sessions, inputs, a kill (two in the recovery phase), a restart, a new turn, the checks. */
  async function runCycle(plan: CyclePlan): Promise<number> {
    const problems: string[] = [];
    const requestsBefore = provider.requests.length;
    let watcher: SseConnection | null = null;
    if (plan.phase === "turn_end") {
      watcher = await app.openStream(plan.sessions[0]!.id, { tail: 0 });
      await watcher.next();
    }
    const sending = plan.sends.map(async ({ session, input, offsetMs }) => {
      await sleep(offsetMs);
      const problem = await send(input, session.id);
      if (problem !== null) problems.push(`session ${session.tag} (${session.id}): ${problem}`);
    });
    await killAt(plan, requestsBefore, watcher);
    watcher?.close();
    const kills = 1 + (await restart(plan));
    await Promise.all(sending);

    for (const session of plan.sessions) {
      for (const input of session.inputs) {
        const problem = await settle(session, input);
        if (problem !== null) problems.push(`session ${session.tag} (${session.id}): ${problem}`);
      }
      // After the last restart the session must take a new input and complete its turn.
      const probe = newInput(
        session,
        `${session.tag}probe`,
        { tools: [{ kind: "append_then_sleep", sleepMs: 0 }], eventDelayMs: 0 },
        true,
      );
      const problem = await send(probe, session.id);
      if (problem !== null || probe.firstAnswer !== "acknowledged") {
        problems.push(
          `session ${session.tag} (${session.id}): the new input after the restart was refused: ${problem}`,
        );
      }
    }
    for (const problem of await Promise.all(plan.sessions.map(idle)))
      if (problem !== null) problems.push(problem);
    if (problems.length > 0) throw failure(plan, problems);
    return kills;
  }

  async function check(sessions: readonly TrackedSession[], plan: { index: number; phase: string }) {
    const totals = { toolCalls: 0, unknownOutcomes: 0, recoveries: 0 };
    const problems: string[] = [];
    for (const session of sessions) {
      const report = await checkSession(app, session);
      problems.push(
        ...report.violations.map((violation) => `session ${session.tag} (${session.id}): ${violation}`),
      );
      totals.toolCalls += report.toolCalls;
      totals.unknownOutcomes += report.unknownOutcomes;
      totals.recoveries += report.recoveries;
    }
    if (problems.length > 0) throw failure(plan, problems);
    return totals;
  }

  it(
    "loses no acknowledged input, keeps every chain valid, leaves no orphan call and runs no tool twice, over repeated SIGKILLs",
    async () => {
      console.log(
        `crash torture: seed ${seed} (replay with SKEIN_TORTURE_SEED=${seed}), budget ${budgetMs} ms`,
      );
      const started = Date.now();
      const everySession: TrackedSession[] = [];
      const killsByPhase = new Map<KillPhase, number>();
      const cycleMs: number[] = [];
      let kills = 0;
      const firstPhase = random.int(0, phases.length - 1);
      for (let index = 0; ; index++) {
        const elapsed = Date.now() - started;
        const perCycle = index === 0 ? 0 : elapsed / index;
        if (kills >= minimumKills && elapsed + perCycle > budgetMs) break;
        const phase = phases[(firstPhase + index) % phases.length]!;
        const cycleStarted = Date.now();
        try {
          const plan = await planCycle(index, phase);
          everySession.push(...plan.sessions);
          const made = await runCycle(plan);
          kills += made;
          killsByPhase.set(phase, (killsByPhase.get(phase) ?? 0) + made);
          await check(plan.sessions, plan);
        } catch (error) {
          throw error instanceof TortureFailure ? error : failure({ index, phase }, [String(error)]);
        }
        cycleMs.push(Date.now() - cycleStarted);
      }
      // Later kills and recoveries must not have changed any earlier session.
      const totals = await check(everySession, { index: -1, phase: "final check of every session" });
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `crash torture: seed ${seed}, ${kills} kills (${[...killsByPhase].map(([phase, n]) => `${phase} ${n}`).join(", ")}), ` +
          `${everySession.length} sessions, ${everySession.reduce((sum, session) => sum + session.inputs.length, 0)} inputs ` +
          `(${cut.inputs} PUTs cut by a kill, ${cut.admitted} of them admitted), ` +
          `${totals.toolCalls} tool calls (${totals.unknownOutcomes} with an unknown outcome), ${totals.recoveries} recovered turns, ` +
          `${seconds} s (a cycle: ${spread(cycleMs)} ms)`,
      );
      expect(kills).toBeGreaterThanOrEqual(minimumKills);
      // The kills did land inside turns and tools, or the run proved little.
      expect(totals.recoveries).toBeGreaterThan(0);
      expect(totals.unknownOutcomes).toBeGreaterThan(0);
    },
    budgetMs + 180_000,
  );
});
