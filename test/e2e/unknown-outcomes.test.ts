/**
 * Unknown outcomes resolved by a person, against the real daemon process: with config.json's
 * `"onUnknownOutcome": {"run_command": "ask"}`, a daemon SIGKILLed while three sessions' commands
 * run leaves each call waiting after the restart (`pending_approvals` kind `unknown_outcome`, an
 * `approval_requested` event) instead of answering "outcome unknown"; `retry` runs the command
 * exactly once more, `skip` and `done` do not run it, and the model's next request carries the
 * result each answer gives; the answer records who gave it; a decision of the other kind is
 * refused and changes nothing; `skein approvals` and `skein resolve` answer from the command
 * line. One daemon for every case (SQLite).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CliSandbox, occurrences } from "../cli/support/cli-harness.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { contentText, eventually, messagesOf, useFakeProvider } from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

interface Snapshot {
  status: { phase: string };
  pending_approvals: Array<{ call_id: string; kind: string; tool: string; rule: Record<string, unknown> }>;
}

const names = ["retry", "skip", "done"] as const;
type Name = (typeof names)[number];

/** Appends a line each time it runs; only its first run blocks (until the SIGKILL). */
function commandOf(name: Name): string {
  const file = `effects-${name}.txt`;
  return `echo ran >> ${file}; [ "$(wc -l < ${file})" -ge 2 ] || sleep 30; echo finished-${name}`;
}

/** The session a request belongs to (its first user message names it), and the tool result it carries. */
function readRequest(request: RecordedRequest): { name: Name | undefined; result: string | undefined } {
  const messages = messagesOf(request);
  const first = messages.find((message) => message.role === "user");
  const name = names.find(
    (candidate) => contentText(first ?? { role: "user", content: "" }) === `run ${candidate}`,
  );
  const tool = messages.find((message) => message.role === "tool");
  return { name, result: tool === undefined ? undefined : contentText(tool) };
}

describe("unknown outcomes resolved by a person", () => {
  const fake = useFakeProvider();

  it("leaves a cut call waiting after SIGKILL; retry runs it once more, skip and done do not; a wrong word changes nothing", async () => {
    const app = await fake.daemon(
      { config: { approvalPolicy: { default: "allow" }, onUnknownOutcome: { run_command: "ask" } } },
      (request) => {
        const { name, result } = readRequest(request);
        if (name === undefined) return text("?");
        if (result === undefined)
          return toolCalls([{ name: "run_command", args: { command: commandOf(name) }, id: `call_${name}` }]);
        return text(`noted (${name})`);
      },
    );
    const effects = (name: Name) => {
      const path = join(app.workspace, `effects-${name}.txt`);
      return existsSync(path) ? readFileSync(path, "utf8") : "";
    };
    const sessions = {} as Record<Name, string>;
    for (const name of names) {
      sessions[name] = await app.createSession();
      await app.prompt(sessions[name], `run ${name}`);
    }
    await eventually("the three commands to start", () =>
      names.every((name) => effects(name) === "ran\n") ? true : undefined,
    );

    await app.kill();
    await app.boot();

    for (const name of names) {
      const waiting = await waitingCall(app, sessions[name]);
      expect(waiting).toMatchObject({
        call_id: `call_${name}`,
        kind: "unknown_outcome",
        tool: "run_command",
        rule: { source: "unknown_outcome", tool: "run_command", pattern: null, action: "ask" },
      });
    }
    // The stream's snapshot lists it; the log holds its request (rule source unknown_outcome).
    const stream = await app.openStream(sessions.retry);
    const first = await stream.next();
    expect(first.batch.snapshot?.pending_approvals).toMatchObject([
      { call_id: "call_retry", kind: "unknown_outcome" },
    ]);
    const requests = await app.sql<{ entry: string }>(
      "SELECT entry FROM transcript WHERE session = ? AND kind = 'approval_requested'",
      [sessions.retry],
    );
    expect(requests.map((row) => JSON.parse(row.entry) as unknown)).toMatchObject([
      { call_id: "call_retry", rule: { source: "unknown_outcome" } },
    ]);
    // Nothing ran again, and the model was not asked again, while the calls waited.
    expect(names.map(effects)).toEqual(["ran\n", "ran\n", "ran\n"]);
    const requestsBefore = fake.provider.requests.length;
    expect(requestsBefore).toBe(3);

    // A word of the other kind, or `remember`, is refused and changes nothing.
    for (const body of [{ decision: "allow" }, { decision: "deny" }, { decision: "skip", remember: true }]) {
      const refused = await answer(app, sessions.done, "call_done", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json<{ code: string; detail: string }>()).toMatchObject({
        code: "invalid_request",
        detail: expect.stringMatching(/outcome is unknown|remember/),
      });
    }
    expect((await waitingCall(app, sessions.done)).call_id).toBe("call_done");
    const wrongWay = await answer(app, sessions.done, "call_done", { decision: "maybe" });
    expect(wrongWay.status).toBe(400);

    // From the command line: `skein approvals` says how to answer, `skein resolve` refuses a wrong word.
    const cli = new CliSandbox({ root: app.root, home: app.home, env: { SKEIN_NO_AUTOSTART: "1" } });
    const listed = await cli.run(["approvals"]);
    expect(listed.stdout).toContain("skein resolve SESSION CALL retry|skip|done");
    expect(occurrences(listed.stdout, "run_command")).toBe(3);
    const wrongWord = await cli.run(["resolve", sessions.done, "call_done", "maybe"]);
    expect(wrongWord.code).toBe(2);
    expect(wrongWord.stderr).toContain("say retry, skip or done");
    const result = "it finished: 3 targets built";
    const resolvedByCli = await cli.run(["resolve", sessions.done, "call_do", "done", "-m", result]);
    expect(resolvedByCli.code).toBe(0);
    expect(resolvedByCli.stdout).toContain("marked done by skein: it finished: 3 targets built");
    await app.idle(sessions.done);

    const answers: Record<"retry" | "skip", Record<string, unknown>> = {
      retry: { decision: "retry" },
      skip: { decision: "skip", message: "the disk was full" },
    };
    for (const name of ["retry", "skip"] as const) {
      const answered = await answer(app, sessions[name], `call_${name}`, {
        ...answers[name],
        client_id: "test",
      });
      expect(answered.status).toBe(200);
      expect(answered.json()).toMatchObject({
        ...answers[name],
        by: "client",
        client_id: "test",
        answered_by: expect.any(String),
      });
      await app.idle(sessions[name]);
    }
    const resolved = await stream.readUntil((event) => event.type === "approval_resolved");
    stream.close();
    expect(eventsOf(resolved).find((event) => event.type === "approval_resolved")?.data).toMatchObject({
      call_id: "call_retry",
      decision: "retry",
      answered_by: expect.any(String),
    });

    expect(effects("retry")).toBe("ran\nran\n");
    expect(effects("skip")).toBe("ran\n");
    expect(effects("done")).toBe("ran\n");
    const results = Object.fromEntries(
      fake.provider.requests.slice(requestsBefore).map((request) => {
        const { name, result } = readRequest(request);
        return [name, result];
      }),
    );
    expect(results.retry).toContain("finished-retry");
    expect(results.skip).toMatch(/says it did not run.*the disk was full/);
    expect(results.done).toBe("it finished: 3 targets built");
    for (const name of names) expect(results[name]).not.toMatch(/outcome is unknown/);

    // The same answer again is the recorded one; the other one a conflict.
    expect((await answer(app, sessions.skip, "call_skip", { decision: "skip" })).status).toBe(200);
    expect((await answer(app, sessions.skip, "call_skip", { decision: "retry" })).status).toBe(409);
    expect(effects("skip")).toBe("ran\n");
  });
});

async function waitingCall(
  app: DaemonHarness,
  sessionId: string,
): Promise<Snapshot["pending_approvals"][number]> {
  return eventually("a call waiting for a person", async () => {
    const response = await app.api(`/sessions/${sessionId}?tail=0`);
    if (response.status !== 200) return undefined;
    const snapshot = response.json<Snapshot>();
    return snapshot.status.phase === "waiting" && snapshot.pending_approvals.length === 1
      ? snapshot.pending_approvals[0]
      : undefined;
  });
}

function answer(app: DaemonHarness, sessionId: string, callId: string, body: Record<string, unknown>) {
  return app.api(`/sessions/${sessionId}/approvals/${callId}`, { method: "POST", body });
}
