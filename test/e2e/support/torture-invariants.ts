/**
 * What must hold for a session of the crash torture once it is idle again after any number of
 * SIGKILLs: every input the test sent is in the history exactly once, in acceptance order, with
 * a committed receipt; the chain verifies and the history pages read; every tool call has exactly
 * one result; and the traces the tools leave in the workspace (see torture-model.ts) show that no
 * call ran twice, that a call whose result says it ran did run, and that nothing ran without a
 * durable call.
 *
 * Boundary rule: test support; it reads the daemon only through HTTP and the workspace's files.
 * It returns the violations as sentences instead of throwing, so the caller can say which seed,
 * cycle and session they belong to.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DaemonHarness, HistoryEntry, HistoryPage, Receipt } from "./daemon-harness.js";
import { entryText, toolResultText } from "./fixture.js";
import { effectsFile, writtenFolder, writtenPath } from "./torture-model.js";

/** One input the test sent, as the test knows it. */
export interface SentInput {
  id: string;
  text: string;
  /** A short name for failure messages. */
  label: string;
  /** How the first PUT ended: a 202, or no answer (connection cut, daemon down or just restarted). */
  firstAnswer: "acknowledged" | "cut";
  /** The acceptance order the daemon gave it (from a 202, or from its receipt after a restart). */
  acceptanceOrder: number | null;
  /** Its turn must have completed (an input sent after the last restart), not merely ended. */
  mustComplete: boolean;
}

/** A session of the torture and everything sent to it. */
export interface TrackedSession {
  id: string;
  /** A short name for failure messages, `c<cycle>s<k>`. */
  tag: string;
  workspace: string;
  inputs: SentInput[];
}

/** The text of a daemon-restart tool result (an unknown outcome). */
const unknownOutcome =
  /The Skein daemon restarted while this tool call was in flight; its outcome is unknown/;

/** What a check of one session found. */
export interface SessionReport {
  /** Every violated invariant, as a sentence (empty: all hold). */
  violations: string[];
  toolCalls: number;
  /** Tool calls answered "outcome unknown" after a restart. */
  unknownOutcomes: number;
  /** Restart notes: turns a kill cut short, recovered. */
  recoveries: number;
}

/** Check every invariant of the torture on `session`, which should be idle. */
export async function checkSession(app: DaemonHarness, session: TrackedSession): Promise<SessionReport> {
  const violations: string[] = [];
  violations.push(...(await idleViolations(app, session.id)));
  violations.push(...(await chainViolations(app, session.id)));
  const read = await wholeHistory(app, session.id);
  if (typeof read === "string")
    return { violations: [...violations, read], toolCalls: 0, unknownOutcomes: 0, recoveries: 0 };
  violations.push(...(await inputViolations(app, session, read)));
  violations.push(...toolViolations(session, read));
  const results = read.filter((entry) => entry.kind === "tool_result");
  return {
    violations,
    toolCalls: read.filter((entry) => entry.kind === "tool_call").length,
    unknownOutcomes: results.filter((entry) => unknownOutcome.test(toolResultText(entry))).length,
    recoveries: read.filter((entry) => entry.kind === "note").length,
  };
}

async function idleViolations(app: DaemonHarness, sessionId: string): Promise<string[]> {
  const response = await app.api(`/sessions/${sessionId}?tail=0`);
  if (response.status !== 200) return [`the snapshot answered ${response.status}: ${response.text}`];
  const snapshot = response.json<{ status: { phase: string }; pending_inputs: unknown[] }>();
  if (snapshot.status.phase !== "idle" || snapshot.pending_inputs.length > 0) {
    return [
      `the session is not idle: phase ${snapshot.status.phase}, ${snapshot.pending_inputs.length} pending inputs`,
    ];
  }
  return [];
}

async function chainViolations(app: DaemonHarness, sessionId: string): Promise<string[]> {
  const response = await app.api(`/sessions/${sessionId}/verify`);
  if (response.status !== 200) return [`GET verify answered ${response.status}: ${response.text}`];
  const report = response.json<{ status: string; problem: unknown }>();
  return report.status === "verified"
    ? []
    : [`the chain does not verify: ${report.status} ${JSON.stringify(report.problem)}`];
}

/** The whole history, paged forward in small pages; a sentence saying what failed otherwise. */
async function wholeHistory(app: DaemonHarness, sessionId: string): Promise<HistoryEntry[] | string> {
  const entries: HistoryEntry[] = [];
  let query = "limit=25&after=0";
  for (let page = 1; ; page++) {
    const response = await app.api(`/sessions/${sessionId}/history?${query}`);
    if (response.status !== 200) {
      return `history page ${page} (${query.slice(0, 40)}) answered ${response.status}: ${response.text}`;
    }
    const body = response.json<HistoryPage>();
    entries.push(...body.items);
    if (body.newer === null) break;
    query = `limit=25&next=${encodeURIComponent(body.newer)}`;
  }
  const ids = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (ids.has(entry.id)) return `history entry ${entry.id} was served twice while paging`;
    ids.add(entry.id);
    const previous = entries[index - 1];
    if (previous !== undefined && previous.position > entry.position) {
      return `history went back from position ${previous.position} to ${entry.position} while paging`;
    }
  }
  return entries;
}

async function inputViolations(
  app: DaemonHarness,
  session: TrackedSession,
  entries: readonly HistoryEntry[],
): Promise<string[]> {
  const problems: string[] = [];
  const users = entries.filter((entry) => entry.kind === "user");
  const known = new Map(session.inputs.map((input) => [input.id, input]));
  for (const entry of users) {
    if (entry.input_id === null || !known.has(entry.input_id)) {
      problems.push(`user entry ${entry.id} ("${entryText(entry).slice(0, 60)}") is no input the test sent`);
    }
  }
  const expected = session.inputs
    .filter((input) => input.acceptanceOrder !== null)
    .sort((a, b) => (a.acceptanceOrder ?? 0) - (b.acceptanceOrder ?? 0));
  const delivered = users.map((entry) => known.get(entry.input_id ?? "")?.label ?? `unknown ${entry.id}`);
  const order = expected.map((input) => input.label);
  if (delivered.join(" | ") !== order.join(" | ")) {
    problems.push(
      `user entries are not the acknowledged inputs in acceptance order: history has [${delivered.join(" | ")}], acceptance order is [${order.join(" | ")}]`,
    );
  }
  const noteTurns = new Set(entries.filter((entry) => entry.kind === "note").map((entry) => entry.turn_id));
  for (const input of session.inputs) {
    const what = `input ${input.label} (${input.id}, first PUT ${input.firstAnswer})`;
    if (input.acceptanceOrder === null) {
      problems.push(`${what} was never admitted`);
      continue;
    }
    const copies = users.filter((entry) => entry.input_id === input.id);
    if (copies.length !== 1) {
      problems.push(`${what} is in the history ${copies.length} times`);
      continue;
    }
    const entry = copies[0]!;
    if (entryText(entry) !== input.text) {
      problems.push(`${what} is stored as "${entryText(entry).slice(0, 80)}"`);
    }
    const response = await app.api(`/sessions/${session.id}/inputs/${input.id}`);
    if (response.status !== 200) {
      problems.push(`${what}: its receipt answered ${response.status}: ${response.text}`);
      continue;
    }
    const receipt = response.json<Receipt>();
    if (receipt.delivery !== "committed") problems.push(`${what}: receipt says delivery ${receipt.delivery}`);
    if (receipt.acceptance_order !== input.acceptanceOrder) {
      problems.push(
        `${what}: receipt says acceptance order ${receipt.acceptance_order}, the daemon first said ${input.acceptanceOrder}`,
      );
    }
    if (receipt.transcript_position !== entry.position) {
      problems.push(
        `${what}: receipt names position ${receipt.transcript_position}, the history has it at ${entry.position}`,
      );
    }
    const state = receipt.turn?.state ?? "none";
    const allowed = input.mustComplete ? ["completed"] : ["completed", "abandoned"];
    if (!allowed.includes(state)) {
      problems.push(`${what}: its turn ended ${state}, expected ${allowed.join(" or ")}`);
    }
    if (state === "abandoned" && !noteTurns.has(receipt.turn?.id ?? null)) {
      problems.push(`${what}: its turn ${receipt.turn?.id} was abandoned but no restart note names it`);
    }
  }
  return problems;
}

/** The result text of a tool_result entry. */
function toolViolations(session: TrackedSession, entries: readonly HistoryEntry[]): string[] {
  const problems: string[] = [];
  const calls = new Map<string, HistoryEntry>();
  for (const entry of entries.filter((candidate) => candidate.kind === "tool_call")) {
    const id = entry.tool?.tool_call_id ?? "";
    if (calls.has(id)) problems.push(`tool call ${id} is in the history twice`);
    calls.set(id, entry);
  }
  const results = new Map<string, HistoryEntry[]>();
  for (const entry of entries.filter((candidate) => candidate.kind === "tool_result")) {
    const id = entry.tool?.tool_call_id ?? "";
    if (!calls.has(id))
      problems.push(`tool result ${entry.id} answers ${id}, which no call in the history made`);
    results.set(id, [...(results.get(id) ?? []), entry]);
  }
  const markers = lines(join(session.workspace, effectsFile));
  const written = filesIn(join(session.workspace, writtenFolder));
  for (const [id, call] of calls) {
    const answers = results.get(id) ?? [];
    if (answers.length !== 1) {
      problems.push(`tool call ${id} (${call.tool?.name}) has ${answers.length} results once idle`);
      continue;
    }
    const result = answers[0]!;
    if (result.position <= call.position) {
      problems.push(
        `tool call ${id} is answered at position ${result.position}, before its call at ${call.position}`,
      );
    }
    const output = toolResultText(result);
    const unknown = unknownOutcome.test(output);
    const isError = result.tool?.is_error === true;
    if (isError && !unknown)
      problems.push(`tool call ${id} (${call.tool?.name}) failed: ${output.slice(0, 200)}`);
    switch (call.tool?.name) {
      case "run_command": {
        const runs = markers.filter((marker) => marker === id).length;
        if (runs > 1)
          problems.push(
            `run_command ${id} ran ${runs} times (its marker is in ${effectsFile} ${runs} times)`,
          );
        if (!unknown && runs !== 1) {
          problems.push(
            `run_command ${id} has a result saying it ran ("${output.slice(0, 60)}") but ${runs} markers`,
          );
        }
        break;
      }
      case "write_file": {
        const file = join(session.workspace, writtenPath(id));
        const present = existsSync(file);
        if (present && readFileSync(file, "utf8") !== `${id}\n`)
          problems.push(`write_file ${id} wrote the wrong content`);
        if (!unknown && !output.startsWith(`created ${writtenPath(id)} `)) {
          // "replaced": the file was already there, so the call ran before this result was made.
          problems.push(
            `write_file ${id} ran more than once or failed: its result is "${output.slice(0, 120)}"`,
          );
        }
        if (!unknown && !present)
          problems.push(`write_file ${id} says it created ${writtenPath(id)}, which is missing`);
        break;
      }
      default:
        problems.push(`tool call ${id} is of a tool the model never calls: ${call.tool?.name}`);
    }
  }
  for (const marker of new Set(markers)) {
    if (calls.get(marker)?.tool?.name !== "run_command") {
      problems.push(
        `${effectsFile} holds marker ${marker}, of no run_command call in the history (a tool ran before its call was durable)`,
      );
    }
  }
  for (const file of written) {
    // A write cut by the kill may leave its temporary sibling (`.<name>.<pid>-<hex>.skein-tmp`) behind.
    const match = /^(\.?)(call_\w+)\.txt(\.\d+-[0-9a-f]+\.skein-tmp)?$/.exec(file);
    const id = match?.[2] ?? "";
    const temporary = match?.[3] !== undefined;
    if (match === null || (match[1] === ".") !== temporary) {
      problems.push(`${writtenFolder}/${file} is no file a write_file call of the model makes`);
    } else if (calls.get(id)?.tool?.name !== "write_file") {
      problems.push(
        `${writtenFolder}/${file} exists, of no write_file call in the history (a tool ran before its call was durable)`,
      );
    } else if (temporary) {
      const answer = results.get(id)?.[0];
      if (answer !== undefined && !unknownOutcome.test(toolResultText(answer))) {
        problems.push(`${writtenFolder}/${file} is left over from write_file ${id}, which says it completed`);
      }
    }
  }
  return problems;
}

function lines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

function filesIn(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder) : [];
}
