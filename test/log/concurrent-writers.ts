/** Runs a second writer in a child process against the same storage, concurrently with this one. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { hashEntry } from "../../src/log/entry-hash.js";
import { AppendConflictError } from "../../src/log/errors.js";
import type { Store } from "../../src/log/store.js";
import { userMessage } from "../../src/model/items.js";

const worker = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "append-worker.ts");

/** How a race between this process and a child process went. */
export interface RaceResult {
  parentConflicts: number;
  childConflicts: number;
}

/**
 * Append `count` entries labelled "parent i" here and `count` labelled "child i" from a child
 * process, both with compare-and-append and retry, starting at the same moment.
 */
export async function raceWithChildProcess(
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

  let parentConflicts = 0;
  for (let i = 0; i < count; ) {
    const head = await store.readHead(sessionId);
    const entry = hashEntry(head?.hash ?? null, {
      kind: "user_input",
      ts: Date.now(),
      item: userMessage(`parent ${i}`),
    });
    try {
      await store.append(sessionId, [entry]);
      i++;
    } catch (error) {
      if (!(error instanceof AppendConflictError)) throw error;
      parentConflicts++;
    }
  }
  const [code] = (await exited) as [number | null];
  if (code !== 0) throw new Error(`worker failed with exit code ${code}`);
  const last = output.trim().split("\n").at(-1)!;
  return { parentConflicts, childConflicts: (JSON.parse(last) as { conflicts: number }).conflicts };
}
