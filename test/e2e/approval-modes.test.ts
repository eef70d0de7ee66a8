/**
 * Approval modes end to end, against the real daemon process: `PUT /sessions/{id}/approval-policy`
 * with `{"mode"}` changes what runs without asking (read-only refuses a write, auto-edit allows
 * it), the snapshot shows `approval_mode`, each change is an `approval_policy_changed` log
 * entry that keeps the session's rules, and a read-only command runs in `ask` mode without
 * asking while any other command still waits.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { eventually, toolResultOf, useFakeProvider } from "./support/fixture.js";

interface Snapshot {
  status: { phase: string };
  pending_approvals: Array<{ call_id: string; tool: string }>;
  approval_policy: unknown;
  approval_mode: string;
}

describe("approval modes", () => {
  const fake = useFakeProvider();

  async function daemon(): Promise<DaemonHarness> {
    return fake.daemon({ config: { approvalPolicy: undefined } }, () => text("done"));
  }

  async function snapshot(app: DaemonHarness, sessionId: string): Promise<Snapshot> {
    return (await app.api(`/sessions/${sessionId}?tail=0`)).json<Snapshot>();
  }

  function setMode(app: DaemonHarness, sessionId: string, body: Record<string, unknown>) {
    return app.api(`/sessions/${sessionId}/approval-policy`, { method: "PUT", body });
  }

  async function loggedChanges(
    app: DaemonHarness,
    sessionId: string,
  ): Promise<Array<Record<string, unknown>>> {
    const rows = await app.sql<{ entry: string }>(
      "SELECT entry FROM transcript WHERE session = ? AND kind = 'approval_policy_changed' ORDER BY position",
      [sessionId],
    );
    return rows.map((row) => JSON.parse(row.entry) as Record<string, unknown>);
  }

  it("refuses a write in read-only mode and allows it in auto-edit mode, without asking either time", async () => {
    const app = await daemon();
    const sessionId = await app.createSession();
    expect((await snapshot(app, sessionId)).approval_mode).toBe("ask");

    const readOnly = await setMode(app, sessionId, { mode: "read-only" });
    expect(readOnly.status).toBe(200);
    expect(readOnly.json()).toEqual({ approval_policy: null, approval_mode: "read-only" });
    fake.provider.queue(
      toolCalls([{ name: "write_file", args: { path: "a.txt", content: "a" }, id: "call_ro" }]),
      text("refused"),
    );
    await app.turn(sessionId, "write a");
    expect(existsSync(join(app.workspace, "a.txt"))).toBe(false);
    expect(toolResultOf((await app.history(sessionId)).items, "call_ro")).toMatch(
      /approval mode \(read-only\)/,
    );

    await setMode(app, sessionId, { mode: "auto-edit" });
    expect((await snapshot(app, sessionId)).approval_mode).toBe("auto-edit");
    fake.provider.queue(
      toolCalls([{ name: "write_file", args: { path: "b.txt", content: "b" }, id: "call_ae" }]),
      text("written"),
    );
    await app.turn(sessionId, "write b");
    expect(readFileSync(join(app.workspace, "b.txt"), "utf8")).toBe("b");
    expect((await loggedChanges(app, sessionId)).map((entry) => entry.mode)).toEqual([
      "read-only",
      "auto-edit",
    ]);
  });

  it("runs a read-only command in ask mode at once and still asks for any other", async () => {
    const app = await daemon();
    const sessionId = await app.createSession();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "ls -a | wc -l && pwd" }, id: "call_ls" }]),
      toolCalls([{ name: "run_command", args: { command: "echo ran > effects.txt" }, id: "call_echo" }]),
      text("ok"),
    );
    await app.prompt(sessionId, "look, then record");
    const waiting = await eventually("the write command to wait", async () => {
      const current = await snapshot(app, sessionId);
      return current.pending_approvals.length === 1 ? current.pending_approvals : undefined;
    });
    expect(waiting.map((call) => call.call_id)).toEqual(["call_echo"]);
    const history = (await app.history(sessionId)).items;
    expect(toolResultOf(history, "call_ls")).toContain(app.workspace);
  });

  it("keeps the session's rules when only the mode changes, and takes both in one body", async () => {
    const app = await daemon();
    const policy = { rules: [{ tool: "run_command", pattern: "rm *", action: "deny" }] };
    const sessionId = await app.createSession({ approval_policy: policy });
    const both = await setMode(app, sessionId, {
      mode: "full-auto",
      approval_policy: { rules: [{ tool: "run_command", pattern: "git push*", action: "deny" }] },
    });
    expect(both.json()).toEqual({
      approval_policy: { rules: [{ tool: "run_command", pattern: "git push*", action: "deny" }] },
      approval_mode: "full-auto",
    });
    const modeOnly = await setMode(app, sessionId, { mode: "ask" });
    expect(modeOnly.json()).toEqual({
      approval_policy: { rules: [{ tool: "run_command", pattern: "git push*", action: "deny" }] },
      approval_mode: "ask",
    });
    expect((await loggedChanges(app, sessionId)).map((entry) => entry.mode ?? null)).toEqual([
      null,
      "full-auto",
      "ask",
    ]);
  });

  it("refuses an unknown mode or an empty body and changes nothing", async () => {
    const app = await daemon();
    const sessionId = await app.createSession();
    for (const body of [{ mode: "yolo" }, {}, { mode: "ask", extra: 1 }]) {
      const bad = await setMode(app, sessionId, body);
      expect(bad.status).toBe(400);
    }
    expect((await snapshot(app, sessionId)).approval_mode).toBe("ask");
    expect(await loggedChanges(app, sessionId)).toEqual([]);
  });
});
