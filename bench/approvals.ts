/**
 * `npm run bench -- approvals`: what approvals cost, each figure with a baseline from the same run.
 *
 * - The policy check of one tool call (its arguments parsed, every rule of every layer matched,
 *   the strictest kept), in µs per call over a mix of commands, paths and MCP calls: with the
 *   built-in policy and with a 24-rule policy plus 8 remembered rules, against the same loop
 *   that only parses the arguments (what a call costs with no policy at all).
 * - The latency a person's `allow` adds before the tool starts, through a real daemon: from
 *   sending `POST /sessions/{id}/approvals/{call_id}` to the call's `tool` start event on the
 *   session's stream (the decision logged durably in between), p50 and p99 over 300 calls;
 *   baseline: the round trip of `GET /server` on the same daemon (the HTTP floor).
 * - The approvals a person answers over a scripted 30-turn coding session in `ask` mode, with
 *   read-only commands allowed, against every command asked (approvals-session.ts).
 */
import { judgeCall, type PolicyLayers } from "../src/daemon/approval/approval-policy.js";
import { classifyUncached } from "../src/daemon/approval/read-only-command.js";
import type { ApprovalPolicy, ApprovalRule } from "../src/model/approval-policy.js";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import type { SseConnection, StreamEvent } from "../test/e2e/support/sse-client.js";
import { text, toolCalls } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { scriptedSession } from "./approvals-session.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";

const checks = 200_000;
const answers = 300;

/** Run every approvals figure. */
export async function run(): Promise<void> {
  const figures: Figure[] = [];
  figures.push(...policyCheck());
  figures.push(...(await allowToStart()));
  figures.push(...(await scriptedSession()));
  writeReport("approvals", figures);
}

const calls: Array<{ tool: string; args: string }> = [
  { tool: "run_command", args: JSON.stringify({ command: "git status --short" }) },
  { tool: "run_command", args: JSON.stringify({ command: "npm test -- --run test/a.test.ts && git diff" }) },
  { tool: "run_command", args: JSON.stringify({ command: "rm -rf build/cache" }) },
  {
    tool: "write_file",
    args: JSON.stringify({ path: "src/daemon/turn/turn-run.ts", content: "x".repeat(2000) }),
  },
  { tool: "edit_file", args: JSON.stringify({ path: "docs/cli.md", old_text: "a", new_text: "b" }) },
  { tool: "read_file", args: JSON.stringify({ path: "README.md" }) },
  { tool: "github__create_issue", args: JSON.stringify({ repo: "me/skein", title: "t", body: "b" }) },
  { tool: "fs__read_text_file", args: JSON.stringify({ path: "/work/x" }) },
];

function largePolicy(): { config: ApprovalPolicy; remembered: ApprovalRule[] } {
  const rules: ApprovalRule[] = [];
  for (const command of [
    "git status*",
    "git diff*",
    "git log*",
    "ls*",
    "cat *",
    "npm test*",
    "npx vitest*",
    "rg *",
  ]) {
    rules.push({ tool: "run_command", pattern: command, action: "allow" });
  }
  for (const command of ["rm *", "sudo *", "curl *", "git push*"])
    rules.push({ tool: "run_command", pattern: command, action: "deny" });
  for (const path of ["docs/*", "test/*", "src/*/README.md", "*.md"])
    rules.push({ tool: "write_file", pattern: path, action: "allow" });
  for (const tool of ["read_file", "list_files", "fs__read_*", "fs__list_*"])
    rules.push({ tool, action: "allow" });
  for (const tool of ["github__*", "slack__*", "fs__write_*", "fs__move_*"])
    rules.push({ tool, action: "ask" });
  const remembered: ApprovalRule[] = [];
  for (let index = 0; index < 8; index++) {
    remembered.push({ tool: "run_command", pattern: `make target-${index}`, action: "allow" });
  }
  return { config: { default: "ask", rules }, remembered };
}

/** µs per call of `work` over `checks` calls (after a warm-up of the same size). */
function perCall(work: (index: number) => unknown): number {
  let sink = 0;
  for (let index = 0; index < checks; index++) sink += work(index) === null ? 1 : 0;
  const started = performance.now();
  for (let index = 0; index < checks; index++) sink += work(index) === null ? 1 : 0;
  const elapsed = performance.now() - started;
  if (sink < 0) console.log(sink);
  return (elapsed * 1000) / checks;
}

function policyCheck(): Figure[] {
  const workspace = "/home/me/project";
  const builtin: PolicyLayers = { remembered: [] };
  const { config, remembered } = largePolicy();
  const large: PolicyLayers = { config, remembered };
  const call = (index: number) => calls[index % calls.length]!;
  const parseOnly = perCall((index) => JSON.parse(call(index).args) as unknown);
  const withBuiltin = perCall((index) => {
    const { tool, args } = call(index);
    return judgeCall(builtin, { tool, args: JSON.parse(args) as Record<string, unknown>, workspace });
  });
  const withLarge = perCall((index) => {
    const { tool, args } = call(index);
    return judgeCall(large, { tool, args: JSON.parse(args) as Record<string, unknown>, workspace });
  });
  const distinct = 2000;
  const classifyStarted = performance.now();
  for (let index = 0; index < distinct; index++)
    classifyUncached(`git log --oneline -n ${index} | head -n 5 && ls src`);
  const classification = ((performance.now() - classifyStarted) * 1000) / distinct;
  const note = `${checks} calls over ${calls.length} kinds (commands, paths, MCP; a command's read-only verdict remembered, as for the second judgement of a call); baseline: parsing the arguments alone (no policy)`;
  return [
    figure("policy_check_builtin", withBuiltin, "µs/call", parseOnly, note),
    figure(
      "policy_check_32_rules",
      withLarge,
      "µs/call",
      parseOnly,
      `${note}; 24 config rules + 8 remembered`,
    ),
    figure(
      "read_only_classification",
      classification,
      "µs/command",
      withBuiltin,
      `${distinct} distinct commands parsed (mvdan-sh) and classified, nothing remembered; baseline: policy_check_builtin`,
    ),
  ];
}

/** Events of a stream, kept so a wait can find one that arrived with an earlier frame. */
class EventLog {
  readonly #seen: StreamEvent[] = [];

  constructor(private readonly stream: SseConnection) {}

  /** The first event (seen or coming) that `match` accepts, and when it was read. */
  async find(match: (event: StreamEvent) => boolean): Promise<{ event: StreamEvent; at: number }> {
    for (;;) {
      const index = this.#seen.findIndex(match);
      if (index !== -1) return { event: this.#seen.splice(index, 1)[0]!, at: performance.now() };
      const frame = await this.stream.next(30_000);
      this.#seen.push(...frame.batch.events);
    }
  }
}

async function allowToStart(): Promise<Figure[]> {
  const provider = await FakeProvider.start();
  const app = await DaemonHarness.start({
    providers: {
      bench: { protocol: "chat_completions", baseUrl: provider.baseUrlWith("v1"), apiKey: "k", model: "m" },
    },
    config: { approvalPolicy: undefined, maxToolRounds: answers + 10 },
    env: { SKEIN_LOG_LEVEL: "warn" },
  });
  try {
    let issued = 0;
    provider.script = () => {
      const index = issued++;
      return index < answers
        ? toolCalls([
            { name: "write_file", args: { path: `f${index % 10}.txt`, content: "x" }, id: `call_${index}` },
          ])
        : text("done");
    };
    const sessionId = await app.createSession();
    const stream = await app.openStream(sessionId);
    const events = new EventLog(stream);
    await app.prompt(sessionId, "write many files");
    const toStart: number[] = [];
    const toAnswer: number[] = [];
    for (let index = 0; index < answers; index++) {
      const callId = `call_${index}`;
      await events.find((event) => event.type === "approval_requested" && event.data.call_id === callId);
      const sent = performance.now();
      const answered = app
        .api(`/sessions/${sessionId}/approvals/${callId}`, { method: "POST", body: { decision: "allow" } })
        .then(() => performance.now() - sent);
      const started = await events.find(
        (event) => event.type === "tool" && event.data.tool_call_id === callId && event.data.result === null,
      );
      toStart.push(started.at - sent);
      toAnswer.push(await answered);
    }
    await app.idle(sessionId);
    stream.close();
    const floor: number[] = [];
    for (let index = 0; index < answers; index++) {
      const sent = performance.now();
      await app.api("/server");
      floor.push(performance.now() - sent);
    }
    toStart.sort((a, b) => a - b);
    toAnswer.sort((a, b) => a - b);
    floor.sort((a, b) => a - b);
    const note = `${answers} allow answers in one turn (write_file, built-in policy); baseline: GET /server round trip`;
    return [
      figure("allow_to_tool_start_p50", quantile(toStart, 0.5), "ms", quantile(floor, 0.5), note),
      figure("allow_to_tool_start_p99", quantile(toStart, 0.99), "ms", quantile(floor, 0.99), note),
      figure(
        "allow_answer_p50",
        quantile(toAnswer, 0.5),
        "ms",
        quantile(floor, 0.5),
        "the POST's own answer (the decision logged)",
      ),
    ];
  } finally {
    await app.close();
    await provider.close();
  }
}
