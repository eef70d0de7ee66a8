/** Run a TypeScript fixture in a child Node process and wait for lines of its output. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface Child {
  process: ChildProcess;
  output(): string;
  /** Resolves once the output contains `text`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Start `fixtures/<name>.ts` with tsx. */
export function startFixture(name: string, args: string[] = []): Child {
  const file = fileURLToPath(new URL(`./fixtures/${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const waiters: Array<() => void> = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    for (const waiter of waiters) waiter();
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  return {
    process: child,
    output: () => output,
    exited,
    waitFor: (text, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`child never printed ${text}; output: ${output}`)),
          timeoutMs,
        );
        const check = () => {
          if (output.includes(text)) {
            clearTimeout(timer);
            resolve();
          }
        };
        waiters.push(check);
        void exited.then(() => {
          check();
          if (!output.includes(text)) {
            clearTimeout(timer);
            reject(new Error(`child exited before printing ${text}; output: ${output}`));
          }
        });
        check();
      }),
  };
}
