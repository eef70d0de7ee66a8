/** Runs a second writer in a child process against the same storage, concurrently with this one. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { v7 as uuidv7 } from "uuid";
import { expect } from "vitest";
import type { Store } from "../../src/log/store.js";
import { appendRacing } from "./racing-appends.js";
import { sampleEntries, writeSession } from "./store-contract.js";

const worker = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "append-worker.ts");

/** How a race between this process and a child process went. */
interface RaceResult {
  parentConflicts: number;
  childConflicts: number;
}

/**
 * Append `count` entries labelled "parent i" here and `count` labelled "child i" from a child
 * process, both with compare-and-append and retry, starting at the same moment.
 */
async function raceWithChildProcess(
  store: Store,
  backend: "fs" | "sqlite",
  location: string,
  sessionId: string,
  count: number,
): Promise<RaceResult> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", worker, backend, location, sessionId, String(count), "child"],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  let output = "";
  child.stdout.setEncoding("utf8");
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("ready\n")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`worker exited early with ${code}`)));
  });
  await ready;
  const exited = once(child, "exit");
  child.stdin.write("go\n");

  const parentConflicts = await appendRacing(store, sessionId, count, "parent");
  const [code] = (await exited) as [number | null];
  if (code !== 0) throw new Error(`worker failed with exit code ${code}`);
  const last = output.trim().split("\n").at(-1)!;
  return { parentConflicts, childConflicts: (JSON.parse(last) as { conflicts: number }).conflicts };
}

/**
 * Races 150 appends of this process against 150 of a child process on one session of `store`
 * (at `location`), and checks that each writer's entries are all there in its own order and
 * that the two really raced (at least one of them lost a compare-and-append).
 */
export async function expectNoInterleaving(
  store: Store,
  backend: "fs" | "sqlite",
  location: string,
): Promise<void> {
  const id = uuidv7();
  await writeSession(store, id, sampleEntries(1));
  const count = 150;
  const race = await raceWithChildProcess(store, backend, location, id, count);
  const read = await store.readAll(id);
  expect(read).toHaveLength(1 + 2 * count);
  const texts = read
    .slice(1)
    .map((e) =>
      e.entry.kind === "user_input" && e.entry.item.type === "message"
        ? e.entry.item.content[0]!.type === "text" && e.entry.item.content[0]!.text
        : "",
    );
  for (const label of ["parent", "child"]) {
    const mine = texts.filter((t) => typeof t === "string" && t.startsWith(`${label} `));
    expect(mine).toEqual(Array.from({ length: count }, (_, i) => `${label} ${i}`));
  }
  expect(race.parentConflicts + race.childConflicts).toBeGreaterThan(0);
}
