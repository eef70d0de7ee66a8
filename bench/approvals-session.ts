/**
 * Part of `npm run bench -- approvals`: how many approvals a person answers over a scripted
 * 30-turn coding session in `ask` mode, through a real daemon and the fake provider.
 *
 * The same 30 turns (explore, search, read, edit, test, review, clean up: 77 tool calls, 62 of
 * them commands, 9 file edits) run twice in one daemon, each in its own session and git workspace:
 * - before: every command asked, as before the read-only command classifier (the session's own
 *   policy has the explicit rule `run_command → ask`, which the classifier never overrides);
 * - after: the built-in policy in `ask` mode, where a command that only reads runs at once.
 * Every asked call is answered `allow` by the bench, so both sessions do the same work.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import type { SseConnection, StreamEvent } from "../test/e2e/support/sse-client.js";
import { text, toolCalls } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { type Figure, figure } from "./report.js";

/** One step of a turn: `$ command`, `read PATH`, `list PATH`, `write PATH` or `edit PATH`. */
type Step = string;

/** The 30 turns, each a list of model rounds, each round a batch of tool calls. */
const turns: Step[][][] = [
  [["$ ls -la", "$ cat package.json", "$ git status"]],
  [["list src", "$ grep -rn TODO src", "$ git log --oneline -n 10"]],
  [["read src/app.ts", "$ wc -l src/*.ts"], ["edit src/app.ts"]],
  [["$ npm test"], ["$ cat test/app.test.ts | head -n 40"]],
  [["$ git diff", "$ git diff --stat"]],
  [["$ rg -n 'export function' src | head -n 20", "read src/util.ts"], ["write src/format.ts"]],
  [["$ node --check src/legacy.js"], ["edit src/format.ts", "$ npm test -- --run test/format.test.ts"]],
  [["$ find src -name '*.ts' | wc -l", "$ ls src test"]],
  [["$ sed -i 's/var /let /g' src/legacy.js", "$ grep -n 'let ' src/legacy.js"]],
  [["$ git status --short", "$ git diff src/legacy.js"]],
  [["$ rm -f build.log", "$ ls"]],
  [["read README.md", "$ grep -n 'Usage' README.md"], ["edit README.md"]],
  [["$ npm run build 2>&1 | tail -n 20"], ["$ ls dist"]],
  [["$ git log -p -n 1 -- src/app.ts", "$ git show --stat HEAD"]],
  [["$ cat src/app.ts src/util.ts", "$ head -n 30 test/app.test.ts"], ["write test/util.test.ts"]],
  [["$ npm test"], ["$ tail -n 50 test/util.test.ts"]],
  [["$ grep -rn 'console.log' src test", "$ sed -i '/console.log/d' src/util.ts"], ["$ git diff"]],
  [["$ mkdir -p src/lib", "$ git mv src/util.ts src/lib/util.ts"], ["edit src/app.ts"]],
  [["$ node --check src/legacy.js", "$ grep -rn \"from './util'\" src"], ["edit src/format.ts"]],
  [["$ npm test", "$ git status"]],
  [["$ du -sh node_modules", "$ ls -la src/lib", "$ stat package.json"]],
  [["$ cat .gitignore", "$ echo dist >> .gitignore"], ["$ git diff .gitignore"]],
  [["$ find . -name '*.orig' -delete", "$ ls"]],
  [["read src/lib/util.ts", "$ grep -c function src/lib/util.ts"], ["edit src/lib/util.ts"]],
  [["$ npm test -- --coverage", "$ cat coverage/summary.txt"]],
  [["$ git log --oneline | head -n 5", "$ git diff HEAD~1 --stat"]],
  [["$ sort -u words.txt | uniq -c | sort -rn | head", "$ wc -l words.txt"]],
  [
    ["$ node scripts/check.js", "$ ls scripts"],
    ["edit scripts/check.js", "$ node scripts/check.js"],
  ],
  [["$ git add -A", "$ git commit -m 'Refactor util into lib'"], ["$ git log --oneline -n 3"]],
  [["$ git status", "$ tree -L 2 src"], ["list ."]],
];

/** The tool call a step makes. */
function callOf(step: Step, id: string): { name: string; args: Record<string, unknown>; id: string } {
  const [verb, ...rest] = step.split(" ");
  const target = rest.join(" ");
  switch (verb) {
    case "$":
      return { name: "run_command", args: { command: target }, id };
    case "read":
      return { name: "read_file", args: { path: target }, id };
    case "list":
      return { name: "list_files", args: { path: target }, id };
    case "write":
      return { name: "write_file", args: { path: target, content: "export const x = 1;\n" }, id };
    case "edit":
      return { name: "edit_file", args: { path: target, old_text: "a", new_text: "b" }, id };
    default:
      throw new Error(`unknown step ${step}`);
  }
}

/** A small git project to work in. */
function seedWorkspace(root: string): void {
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(join(root, "test"), { recursive: true });
  writeFileSync(join(root, "package.json"), '{"name":"demo","scripts":{"test":"echo ok"}}\n');
  writeFileSync(join(root, "README.md"), "# demo\n\nUsage: a\n");
  writeFileSync(join(root, "src/app.ts"), "export const a = 1; // TODO\n");
  writeFileSync(join(root, "src/util.ts"), "export function a() { console.log('a'); }\n");
  writeFileSync(join(root, "src/legacy.js"), "var a = 1;\n");
  writeFileSync(join(root, "test/app.test.ts"), "// a test\n");
  writeFileSync(join(root, "words.txt"), "a\nb\na\n");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
  git("init", "-q");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "add", "-A");
  git("-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "seed");
}

/** Run the 30 turns in a new session created with `body`; the approvals asked in each turn. */
async function askedPerTurn(
  app: DaemonHarness,
  provider: FakeProvider,
  body: Record<string, unknown>,
  label: string,
): Promise<number[]> {
  const sessionId = await app.createSession(body);
  const stream = await app.openStream(sessionId);
  const asked: number[] = [];
  try {
    for (const [turnIndex, rounds] of turns.entries()) {
      provider.queue(
        ...rounds.map((round, roundIndex) =>
          toolCalls(round.map((step, index) => callOf(step, `${label}_${turnIndex}_${roundIndex}_${index}`))),
        ),
        text("done"),
      );
      await app.prompt(sessionId, `turn ${turnIndex + 1}`);
      asked.push(await answerUntilDone(app, sessionId, stream));
    }
  } finally {
    stream.close();
  }
  return asked;
}

/** Allow every call the turn asks about until it completes; how many it asked. */
async function answerUntilDone(
  app: DaemonHarness,
  sessionId: string,
  stream: SseConnection,
): Promise<number> {
  let asked = 0;
  for (;;) {
    const frame = await stream.next(60_000);
    for (const event of frame.batch.events as StreamEvent[]) {
      if (event.type === "turn_completed") return asked;
      if (event.type !== "approval_requested") continue;
      asked++;
      const callId = (event.data as { call_id: string }).call_id;
      await app.api(`/sessions/${sessionId}/approvals/${callId}`, {
        method: "POST",
        body: { decision: "allow" },
      });
    }
  }
}

/** The figures of the scripted session: approvals asked before and after the classifier. */
export async function scriptedSession(): Promise<Figure[]> {
  const provider = await FakeProvider.start();
  const app = await DaemonHarness.start({
    providers: {
      bench: { protocol: "chat_completions", baseUrl: provider.baseUrlWith("v1"), apiKey: "k", model: "m" },
    },
    config: { approvalPolicy: undefined, maxToolRounds: 20 },
    env: { SKEIN_LOG_LEVEL: "warn" },
  });
  try {
    seedWorkspace(app.workspace);
    const everyCommandAsked = {
      default: "ask",
      rules: [
        { tool: "read_file", action: "allow" },
        { tool: "list_files", action: "allow" },
        { tool: "run_command", action: "ask" },
      ],
    };
    const before = await askedPerTurn(app, provider, { approval_policy: everyCommandAsked }, "before");
    const after = await askedPerTurn(app, provider, {}, "after");
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    const calls = turns.flat(2).length;
    const note = `30 scripted turns, ${calls} tool calls; baseline: every command asked; per turn before [${before.join(",")}], after [${after.join(",")}]`;
    console.log(`approvals asked per turn, before: ${before.join(" ")}`);
    console.log(`approvals asked per turn, after:  ${after.join(" ")}`);
    return [
      figure("session_approvals_asked", sum(after), "approvals", sum(before), note),
      figure(
        "session_approvals_per_turn_mean",
        sum(after) / after.length,
        "approvals/turn",
        sum(before) / before.length,
      ),
      figure(
        "session_turns_without_approval",
        after.filter((count) => count === 0).length,
        "turns",
        before.filter((count) => count === 0).length,
        "of 30 (more is better)",
      ),
    ];
  } finally {
    await app.close();
    await provider.close();
  }
}
