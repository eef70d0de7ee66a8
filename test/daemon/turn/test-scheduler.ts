/** A turn scheduler for tests of a session's turns alone: on a small port (no actor), with the session's other parts. */
import { ApprovalGate } from "../../../src/daemon/approval/approval-gate.js";
import { SessionCompactor } from "../../../src/daemon/compaction/compaction.js";
import { InputQueue } from "../../../src/daemon/session/input-queue.js";
import { TurnScheduler } from "../../../src/daemon/turn/turn-scheduler.js";
import type { TestPort } from "../session/test-port.js";

/** The scheduler of `env`'s session; a crash it reports is thrown. */
export function testScheduler(env: TestPort): TurnScheduler {
  const { port, storage, services } = env;
  const parts = {
    inputs: new InputQueue(port, storage),
    gate: new ApprovalGate(port),
    compactor: new SessionCompactor(port, services.limitsOf),
  };
  return new TurnScheduler(port, services, parts, {
    halted: () => false,
    statusChanged: () => undefined,
    crash: (error) => {
      throw error;
    },
  });
}
