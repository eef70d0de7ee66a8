/**
 * The scripted model of the crash torture: each user prompt carries a plan (which tool calls to
 * make, how fast to stream), and the fake provider answers every request from the conversation
 * alone, so it behaves the same before and after a daemon restart.
 *
 * Every tool call leaves a trace in the session's workspace that names its call id: a
 * `run_command` appends one line `<call id>` to `effects.log`, a `write_file` creates
 * `written/<call id>.txt`. Counting those traces tells how many times each call really ran.
 *
 * Boundary rule: test support; it knows the daemon only through the requests it sends.
 */

import type { FakeToolCall, Reply } from "../../support/fake-provider/reply.js";
import { text, toolCalls } from "../../support/fake-provider/reply.js";
import type { RecordedRequest } from "../../support/fake-provider/server.js";
import { contentText, messagesOf } from "./fixture.js";

/** The file `run_command` calls append their marker line to. */
export const effectsFile = "effects.log";
/** The folder `write_file` calls create their file in. */
export const writtenFolder = "written";

/** One tool call the model makes. */
export type PlannedTool =
  /** `run_command`: append the marker, then sleep (a kill in the sleep leaves the marker). */
  | { kind: "append_then_sleep"; sleepMs: number }
  /** `run_command`: sleep, then append the marker (a kill in the sleep leaves none). */
  | { kind: "sleep_then_append"; sleepMs: number }
  /** `write_file`: create `written/<call id>.txt` holding the call id. */
  | { kind: "write" };

/** What the model does with one prompt. */
export interface InputPlan {
  /** Tool calls made in answer to the prompt (none: a plain text answer). */
  tools: PlannedTool[];
  /** Pause between the stream events of every answer in the prompt's turn. */
  eventDelayMs: number;
}

const planMarker = " plan=";

/** The prompt text for `plan`, starting with `label` (unique per input, for failure messages). */
export function promptFor(label: string, plan: InputPlan): string {
  return `${label}${planMarker}${JSON.stringify(plan)}`;
}

/** The plan a prompt carries, or undefined for any other text (a restart note, say). */
function planOf(prompt: string): InputPlan | undefined {
  const at = prompt.indexOf(planMarker);
  if (at < 0) return undefined;
  return JSON.parse(prompt.slice(at + planMarker.length)) as InputPlan;
}

/** The workspace path of the file a `write_file` call with `callId` creates. */
export function writtenPath(callId: string): string {
  return `${writtenFolder}/${callId}.txt`;
}

/**
 * The fake provider's script. A request that ends with prompts (the inputs a turn just took)
 * gets the tool calls their plans list, in order (ids `call_r<request index>_<k>`, unique over
 * the run); every other request (after tool results, after a restart note) gets a short text
 * answer. Answers stream at the pace of the latest plan in the conversation.
 */
export function tortureModel(request: RecordedRequest): Reply {
  const messages = messagesOf(request);
  const plans = messages.map((message) =>
    message.role === "user" ? planOf(contentText(message)) : undefined,
  );
  const trailing: InputPlan[] = [];
  for (let index = plans.length - 1; index >= 0 && plans[index] !== undefined; index--)
    trailing.unshift(plans[index]!);
  const latest = plans.findLast((plan) => plan !== undefined);
  const delivery = { delayMs: latest?.eventDelayMs ?? 0 };
  const tools = trailing.flatMap((plan) => plan.tools);
  if (tools.length > 0) {
    const calls = tools.map((tool, k) => toolCallFor(tool, `call_r${request.index}_${k}`));
    return toolCalls(calls, { text: "working on it", delivery });
  }
  return text(`done ${request.index}, all went well here`, { delivery });
}

function toolCallFor(tool: PlannedTool, id: string): FakeToolCall {
  switch (tool.kind) {
    case "append_then_sleep":
      return {
        name: "run_command",
        id,
        args: { command: `echo ${id} >> ${effectsFile}; ${sleep(tool.sleepMs)}` },
      };
    case "sleep_then_append":
      return {
        name: "run_command",
        id,
        args: { command: `${sleep(tool.sleepMs)}; echo ${id} >> ${effectsFile}` },
      };
    case "write":
      return { name: "write_file", id, args: { path: writtenPath(id), content: `${id}\n` } };
    default: {
      const unknown: never = tool;
      throw new Error(`unknown planned tool ${JSON.stringify(unknown)}`);
    }
  }
}

function sleep(ms: number): string {
  return `sleep ${(ms / 1000).toFixed(3)}`;
}
