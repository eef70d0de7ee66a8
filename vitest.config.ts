import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that take long mostly waiting (a native compile, schedules firing in real time): started
 * first, so that they overlap the rest instead of running on alone at the end. Without a cache
 * of past runs (CI's clean clone) Vitest starts the largest files first, and these are small:
 * `npm-pack` alone ended the `together` files 50 s after everything else.
 */
const startFirst = [
  "test/install/npm-pack.test.ts",
  "test/e2e/schedules-cluster.test.ts",
  "test/e2e/schedules.test.ts",
];

/** Vitest's order, with the `startFirst` files moved to the front of their project. */
class StartFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const index = startFirst.findIndex((path) => spec.moduleId.endsWith(path));
      return index === -1 ? startFirst.length : index;
    };
    const projects = [...new Set(sorted.map((spec) => spec.project.name))];
    return projects.flatMap((name) =>
      sorted
        .filter((spec) => spec.project.name === name)
        .map((spec, order) => ({ spec, order, rank: rank(spec) }))
        .sort((a, b) => a.rank - b.rank || a.order - b.order)
        .map(({ spec }) => spec),
    );
  }
}

/**
 * Files that assert on wall-clock time (a hand-off within 2 s, a stop naming a finished turn) or
 * that load the whole machine (the crash torture, the network-namespace cluster): they run one
 * at a time after everything else, so a neighbour's load cannot fail them.
 */
const runAlone = [
  "test/e2e/cluster.test.ts",
  "test/e2e/cluster-config.test.ts",
  "test/e2e/cluster-netns.test.ts",
  "test/e2e/cluster-operations.test.ts",
  "test/e2e/crash-torture.test.ts",
  "test/e2e/turn-commits.test.ts",
  "test/cli/daemon-stop.test.ts",
  "test/cli/daemon-stop-attached.test.ts",
  "test/daemon/process/readiness.test.ts",
  "test/daemon/cluster/actor-fence.test.ts",
  "test/daemon/cluster/node-registration.test.ts",
  "test/daemon/stream/sse-stream.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/support/fast-check-sizes.ts"],
    // Most files wait on child processes, sockets and fsyncs: with two at a time the machine's
    // two cores were busy 54% of the time, and three at a time ran the `together` files in 428 s
    // instead of 539 s for the same CPU (Vitest's default on a 2-core machine is one).
    maxWorkers: 3,
    sequence: { sequencer: StartFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: "together",
          include: ["test/**/*.test.ts"],
          exclude: runAlone,
          // A worker process runs file after file instead of one new process per file: ~0.15 s
          // and half the CPU less per file (91 unit files: 34 s → 21 s wall, 41 s → 21 s CPU).
          // The files share no state that matters: daemons, servers and databases are each
          // file's own, and the few that change process state (umask, an env variable) restore it.
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: "alone",
          include: runAlone,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
