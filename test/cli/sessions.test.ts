/**
 * Session commands end to end: sessions, show, fork, interrupt, rm, and id prefixes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { tokenCount } from "../../src/cli/render/session-table.js";
import { deliver, deltas, text, toolCalls } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { eventually } from "./support/cli-harness.js";

interface Summary {
  id: string;
  name: string | null;
  parent_id: string | null;
  preview: { text: string };
  status: { phase: string };
  usage: { total_tokens: number };
}

describe("session commands", () => {
  const shared = useCliDaemon();

  beforeAll(() => {
    shared.provider.script = () => text("Plain answer.");
  });

  async function sessions(): Promise<Summary[]> {
    return (await shared.daemon.api("/sessions")).json<{ items: Summary[] }>().items;
  }

  async function newSession(prompt: string, name?: string): Promise<string> {
    const result = await shared.cli.run(["run", ...(name === undefined ? [] : ["--name", name]), prompt]);
    expect(result.code).toBe(0);
    const found = (await sessions()).find((session) => session.preview.text === prompt);
    if (found === undefined) throw new Error(`no session for ${prompt}`);
    return found.id;
  }

  it("prints with -n 1 a prefix unique among all sessions, which names the same session when pasted back", async () => {
    // Sessions made within a minute share their first 8 characters (the ids start with the time).
    await newSession("prefix one");
    const newest = await newSession("prefix two");
    const ids = (await sessions()).map((session) => session.id);
    const listed = await shared.cli.run(["sessions", "-n", "1"]);
    expect(listed.code, listed.stderr).toBe(0);
    const prefix = listed.stdout.split("\n")[1]!.split(/\s+/)[0]!;
    expect(newest.startsWith(prefix)).toBe(true);
    expect(ids.filter((id) => id.startsWith(prefix))).toEqual([newest]);
    const shown = await shared.cli.run(["show", prefix]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain("prefix two");
  });

  it("lists sessions as a table with id prefix, name, status, activity, model, tokens used and preview", async () => {
    const id = await newSession("list me please", "listed");
    const result = await shared.cli.run(["sessions"]);
    expect(result.code).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID\s+NAME\s+STATUS\s+ACTIVE\s+MODEL\s+TOKENS\s+PREVIEW$/);
    const row = rows.find((line) => line.includes("list me please"));
    expect(row).toBeDefined();
    const prefix = row!.split(/\s+/)[0]!;
    expect(id.startsWith(prefix)).toBe(true);
    const summary = (await sessions()).find((session) => session.id === id)!;
    expect(summary.usage.total_tokens).toBeGreaterThan(0);
    const tokens = tokenCount(summary.usage.total_tokens);
    expect(row).toMatch(
      new RegExp(`listed\\s+idle\\s+(just now|\\d+s ago)\\s+fake-model\\s+${tokens}\\s+list me please`),
    );
    const json = JSON.parse((await shared.cli.run(["sessions", "--json"])).stdout) as Summary[];
    expect(json.map((session) => session.id)).toContain(id);
  });

  it("shows a session's history readably, with tool calls and entry ids", async () => {
    shared.provider.queue(
      toolCalls([{ name: "list_files", args: { path: "." } }], { text: "Looking around." }),
      text("The workspace is empty."),
    );
    const id = await newSession("what is here?");
    const result = await shared.cli.run(["show", id.slice(0, 23)]);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`session ${id}`);
    expect(out).toMatch(/\[1\] you .*\n {4}what is here\?/);
    expect(out).toMatch(/\[2-0\] assistant .*\n {4}Looking around\./);
    expect(out).toMatch(/\[2-1\] ⚙ list_files \./);
    expect(out).toMatch(/\[3\] → list_files /);
    expect(out).toMatch(/\[4\] assistant .*\n {4}The workspace is empty\./);
    const tail = await shared.cli.run(["show", id, "--tail", "1"]);
    expect(tail.stdout).toContain("The workspace is empty.");
    expect(tail.stdout).not.toContain("what is here?");
    expect(tail.stdout).toContain("earlier entries not shown");
  });

  it("accepts any unique prefix, with or without dashes, and a session name", async () => {
    const id = await newSession("prefix target", "prefixed");
    for (const ref of [id, id.slice(0, 24), id.replaceAll("-", "").slice(0, 22), "prefixed"]) {
      const result = await shared.cli.run(["show", ref, "--tail", "1"]);
      expect(result.code, `ref ${ref}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain(`session ${id}`);
    }
  });

  it("refuses an ambiguous prefix with exit 2 and lists the candidates", async () => {
    const a = await newSession("ambiguous one");
    const b = await newSession("ambiguous two");
    let common = 0;
    while (a[common] === b[common]) common++;
    const result = await shared.cli.run(["show", a.slice(0, common)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`session id prefix "${a.slice(0, common)}" is ambiguous`);
    expect(result.stderr).toContain(a);
    expect(result.stderr).toContain(b);
  });

  it("reports an unknown session id with exit 4", async () => {
    const unknown = await shared.cli.run(["show", "fffffff"]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('no session matches "fffffff"');
    const full = await shared.cli.run(["show", "01890a5d-ac96-774b-bcce-b302099a8057"]);
    expect(full.code).toBe(4);
    expect(full.stderr).toContain("not found");
  });

  it("forks at the newest entry by default and at a given entry with --at", async () => {
    shared.provider.script = () => text("Fork source answer.");
    const id = await newSession("fork me");
    const whole = await shared.cli.run(["fork", id.slice(0, 24)]);
    expect(whole.code).toBe(0);
    const wholeId = whole.stdout.trim();
    expect(whole.stderr).toContain(`forked session ${id}`);
    const partial = await shared.cli.run(["fork", id, "--at", "1", "--name", "early-branch"]);
    expect(partial.code).toBe(0);
    const partialId = partial.stdout.trim();
    const all = await sessions();
    expect(all.find((session) => session.id === wholeId)?.parent_id).toBe(id);
    expect(all.find((session) => session.id === partialId)?.name).toBe("early-branch");
    const wholeShow = (await shared.cli.run(["show", wholeId])).stdout;
    expect(wholeShow).toContain("fork me");
    expect(wholeShow).toContain("Fork source answer.");
    const partialShow = (await shared.cli.run(["show", "early-branch"])).stdout;
    expect(partialShow).toContain("fork me");
    expect(partialShow).not.toContain("Fork source answer.");
    const bad = await shared.cli.run(["fork", id, "--at", "999"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("999");
  });

  it("interrupts a running turn and refuses to delete a busy session unless forced", async () => {
    shared.provider.script = () => deliver(deltas(400, "slow "), { delayMs: 25 });
    const id = await shared.daemon.createSession({ name: "busy" });
    await shared.daemon.prompt(id, "take your time");
    await eventually(
      () => shared.provider.requests.length > 0,
      () => "the provider never got the request",
    );
    const refused = await shared.cli.run(["rm", "busy"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is running a turn");
    const interrupted = await shared.cli.run(["interrupt", "busy"]);
    expect(interrupted.code).toBe(0);
    expect(interrupted.stdout).toContain("interrupted run");
    await shared.daemon.idle(id);
    expect(shared.provider.lastRequest.clientAborted).toBe(true);
    const idle = await shared.cli.run(["interrupt", "busy"]);
    expect(idle.stdout).toContain("nothing to interrupt");

    await shared.daemon.prompt(id, "again, slowly");
    const forced = await shared.cli.run(["rm", "--force", "busy"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`deleted session ${id}`);
    expect((await sessions()).some((session) => session.id === id)).toBe(false);
  });

  it("deletes sessions with rm", async () => {
    shared.provider.script = () => text("Plain answer.");
    const a = await newSession("delete me a");
    const b = await newSession("delete me b");
    const result = await shared.cli.run(["rm", a, b.slice(0, 24)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`deleted session ${a}`);
    expect(result.stdout).toContain(`deleted session ${b}`);
    const left = (await sessions()).map((session) => session.id);
    expect(left).not.toContain(a);
    expect(left).not.toContain(b);
    const again = await shared.cli.run(["rm", a]);
    expect(again.code).toBe(4);
  });
});
