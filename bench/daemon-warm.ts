/**
 * Daemon bench part `warm`: what a plain turn and a one-shot session cost a daemon that has run
 * for a while, against what they cost it when new. V8 optimizes a function only after it has
 * run enough, and a turn runs many functions once each, so a new daemon's turns cost more than
 * a daemon's that has served thousands; the `turns` and `oneshot` parts measure a new daemon
 * (20 and 5 warm-up), this part the same daemon over its first 3,000 turns and after.
 *
 * The turns are spread over sessions of 100 turns each, so no session's history grows long
 * (a request carries the whole conversation, which would be measured instead).
 */
import { v7 as uuidv7 } from "uuid";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import type { FakeProvider } from "../test/support/fake-provider/server.js";
import { cpuPer, runOneShot, total } from "./daemon-oneshot.js";
import { daemonEnv, type Follower, follow, followedTurn, profiles } from "./daemon-support.js";
import { type Figure, figure } from "./report.js";

/** Turns per measured window, windows in all, turns per session. */
const windowTurns = 200;
const windows = 15;
const sessionTurns = 100;

/** The daemon CPU per plain turn in each window of `windowTurns`, from the daemon's first turn. */
async function turnCurve(app: DaemonHarness): Promise<number[]> {
  let session = "";
  let follower: Follower | null = null;
  let done = 0;
  const turn = async () => {
    if (done % sessionTurns === 0) {
      follower?.close();
      session = await app.createSession();
      follower = await follow(app, session);
    }
    await followedTurn(app, session, follower as Follower, `turn ${done}`);
    done++;
  };
  const curve: number[] = [];
  for (let w = 0; w < windows; w++) {
    const cpu = await cpuPer(app, windowTurns, async () => {
      for (let i = 0; i < windowTurns; i++) await turn();
    });
    curve.push(total(cpu));
  }
  (follower as Follower | null)?.close();
  return curve;
}

/** Warm the one-shot path through the API (cheaper to drive than the CLI): create with a first input, attach. */
async function warmOneShots(app: DaemonHarness, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const session = await app.createSession({ input: { id: uuidv7(), kind: "message", text: "hi" } });
    const follower = await follow(app, session);
    await new Promise((resolve) => setTimeout(resolve, 15));
    follower.close();
  }
}

/** The figures of the part. */
export async function warmFigures(provider: FakeProvider, oneShots: number): Promise<Figure[]> {
  provider.script = () => text(["Hello", " there."]);
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "warn" }),
  });
  try {
    const curve = await turnCurve(app);
    await warmOneShots(app, 500);
    const oneShot = total(
      await cpuPer(app, oneShots, async () => {
        for (let i = 0; i < oneShots; i++) await runOneShot(app);
      }),
    );
    const first = curve[0]!;
    const last = curve[curve.length - 1]!;
    const shown = curve.map((ms) => ms.toFixed(2)).join(", ");
    return [
      figure(
        "cpu_per_turn_ms_warm",
        last,
        "ms",
        first,
        `daemon CPU (utime+stime, its own and its waited-for children's, /proc/<pid>/stat) per plain turn in turns ${(windows - 1) * windowTurns + 1}–${windows * windowTurns} of a new daemon (sessions of ${sessionTurns} turns); baseline: its first ${windowTurns} turns; per window of ${windowTurns}: ${shown} ms; target <= 3 ms`,
      ),
      figure(
        "oneshot_session_cpu_ms_warm",
        oneShot,
        "ms",
        last,
        `daemon CPU per \`skein run "hi"\` in a new session, ${oneShots} in a row on the same daemon after those ${windows * windowTurns} turns and 500 sessions created with a first input and attached to through the API; baseline: cpu_per_turn_ms_warm; target <= 5.5 ms`,
      ),
    ];
  } finally {
    await app.close();
  }
}
