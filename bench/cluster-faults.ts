/**
 * `npm run bench -- cluster-faults`: the long fault-injection run on a three-node cluster under
 * client traffic (test/e2e/support/cluster-faults.ts; the e2e test runs five cycles of it):
 * SKEIN_FAULT_CYCLES cycles (default 100) of random SIGKILL, SIGSTOP past the lease, SIGTERM,
 * PostgreSQL restarts (`-m fast`) and PostgreSQL killed with its backends (`-m immediate`),
 * on a PostgreSQL server the run owns. Figures: takeover p50/p90/max per fault kind (node faults:
 * until every session the node owned answered from another node; database faults: until every
 * session answered again once the database was back), baseline the lease (2 s); answers by status
 * while the database was down; and the invariants checked at the end (violations, target 0).
 * SKEIN_TORTURE_SEED=<seed> replays the random choices.
 */
import { runFaults } from "../test/e2e/support/cluster-faults.js";
import { SeededRandom, seedFromEnvironment } from "../test/e2e/support/seeded-random.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";

const leaseSeconds = 2;

/** Run the cycles and report. */
export async function run(): Promise<void> {
  const cycles = Number(process.env.SKEIN_FAULT_CYCLES ?? "100");
  const seed = seedFromEnvironment();
  const provider = await FakeProvider.start();
  const started = Date.now();
  try {
    const report = await runFaults({
      provider,
      random: new SeededRandom(seed),
      seed,
      cycles,
      leaseSeconds,
      progress: (index, cycle) => {
        if ((index + 1) % 10 === 0)
          console.log(`  ${index + 1}/${cycles} cycles (last: ${cycle.kind}, ${cycle.takeoverMs} ms)`);
      },
    });
    const figures: Figure[] = [];
    const lease = leaseSeconds * 1000;
    for (const kind of ["sigkill", "sigstop", "sigterm", "db_restart", "db_kill"] as const) {
      const times = report.cycles
        .filter((cycle) => cycle.kind === kind)
        .map((cycle) => cycle.takeoverMs)
        .sort((a, b) => a - b);
      const note = `${times.length} cycles; baseline: the lease (${leaseSeconds} s)`;
      figures.push(figure(`takeover_${kind}_p50_ms`, quantile(times, 0.5), "ms", lease, note));
      figures.push(figure(`takeover_${kind}_p90_ms`, quantile(times, 0.9), "ms", lease, note));
      figures.push(figure(`takeover_${kind}_max_ms`, times.at(-1) ?? Number.NaN, "ms", lease, note));
    }
    for (const kind of ["db_restart", "db_kill"] as const) {
      const outage = Object.entries(report.outageAnswers[kind]).sort(([a], [b]) => a.localeCompare(b));
      const total = outage.reduce((sum, [, n]) => sum + n, 0);
      const note =
        kind === "db_kill"
          ? "answers to requests sent while PostgreSQL was stopped (-m immediate, 0.5-3 s; 0: no answer); baseline: all of them"
          : "answers to requests sent during pg_ctl restart -m fast (the window's edges may catch requests served just before the stop or after the start); baseline: all of them";
      for (const [status, n] of outage) {
        figures.push(
          figure(`answers_during_${kind}_${status.replace(/\s+/g, "_")}`, n, "answers", total, note),
        );
      }
    }
    const failures = report.answers.filter((answer) => answer.status === 500).length;
    figures.push(
      figure(
        "answers_500_whole_run",
        failures,
        "answers",
        report.answers.length,
        "target 0; baseline: every answer of the run",
      ),
    );
    figures.push(
      figure(
        "invariant_violations",
        report.violations.length,
        "violations",
        null,
        `target 0; seed ${seed}; ${report.inputs.acknowledged} of ${report.inputs.sent} inputs acknowledged; ${Math.round((Date.now() - started) / 1000)} s${report.violations.length === 0 ? "" : `; first: ${report.violations[0]}`}`,
      ),
    );
    writeReport("cluster-faults", figures);
    if (report.violations.length > 0) {
      console.error(report.violations.slice(0, 20).join("\n"));
      process.exitCode = 1;
    }
  } finally {
    await provider.close();
  }
}
