/**
 * `tsx bench/wal-pages.ts [turns]`: the pages SQLite writes to its write-ahead log per plain
 * turn and per new session with its first turn, on a real daemon with its shipped settings, and
 * which table or index each page belongs to. Each unit's frames are read from the WAL file
 * before and after it (bench/wal-frames.ts); the daemon's own checkpoints may restart the log in
 * between, which the frames' salts tell. SKEIN_PROFILE_BIN names another checkout's built
 * `bin/skein.js` to measure instead. Not a suite of `npm run bench`: a tool for work on the
 * schema's write cost.
 */
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { profiles } from "./daemon-support.js";
import { framesSince, pageOwners, pagesByOwner, readWal } from "./wal-frames.js";

const turns = Number(process.argv[2] ?? 20);
const provider = await FakeProvider.start();
provider.script = () => text(["Hello", " there."]);
const app = await DaemonHarness.start({
  providers: profiles(provider),
  env: { SKEIN_CHECKPOINTS: "0" },
  ...(process.env.SKEIN_PROFILE_BIN === undefined ? {} : { skeinBin: process.env.SKEIN_PROFILE_BIN }),
});

/** The frames `unit` wrote, and in how many commits. */
async function framesOf(unit: () => Promise<void>): Promise<{ pages: number[]; commits: number }> {
  const before = readWal(`${app.dbPath}-wal`);
  await unit();
  return framesSince(before, readWal(`${app.dbPath}-wal`));
}

function report(label: string, units: Array<{ pages: number[]; commits: number }>): void {
  const pages = units.flatMap((unit) => unit.pages);
  const commits = units.reduce((sum, unit) => sum + unit.commits, 0);
  console.log(
    `${label}: ${(pages.length / units.length).toFixed(2)} pages in ${(commits / units.length).toFixed(2)} commits per unit (${units.length} units)`,
  );
  for (const [owner, count] of pagesByOwner(pages, pageOwners(app.dbPath))) {
    console.log(`  ${(count / units.length).toFixed(2).padStart(6)}  ${owner}`);
  }
}

try {
  const session = await app.createSession();
  for (let i = 0; i < 10; i++) await app.turn(session, `warm-up ${i}`);
  const plain: Array<{ pages: number[]; commits: number }> = [];
  for (let i = 0; i < turns; i++) plain.push(await framesOf(() => app.turn(session, `turn ${i}`)));
  report("plain turn", plain);
  const created: Array<{ pages: number[]; commits: number }> = [];
  const firstTurns: Array<{ pages: number[]; commits: number }> = [];
  for (let i = 0; i < turns; i++) {
    let id = "";
    created.push(
      await framesOf(async () => {
        id = await app.createSession();
      }),
    );
    firstTurns.push(await framesOf(() => app.turn(id, "hi")));
  }
  report("session creation", created);
  report("a new session's first turn", firstTurns);
} finally {
  await app.close();
  await provider.close();
}
