/**
 * The session collection and a session's lifetime: listing by activity, unloading quiet actors
 * (SKEIN_UNLOAD_SECONDS=1) and reloading them from the log, forking at a checkpoint, a tampered
 * log answering 500 log_corrupt, and paging a snapshot's tail back through `older` tokens. One daemon for the file; each test uses its own
 * sessions.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";
import {
  type DaemonHarness,
  databaseKinds,
  type HistoryEntry,
  type HistoryPage,
  userTexts,
} from "./support/daemon-harness.js";
import { contentText, entryText, eventually, messagesOf, startFixture } from "./support/fixture.js";

interface Summary {
  id: string;
  parent_id: string | null;
  activity_at: string;
  cursor: { generation: string; sequence: number } | null;
  preview: { text: string; transcript_count: number; truncated: boolean };
  creation: Record<string, unknown>;
}

describe.each(databaseKinds)("sessions ($name)", ({ database }) => {
  let provider: FakeProvider;
  let app: DaemonHarness;

  beforeAll(async () => {
    ({ provider, app } = await startFixture({ SKEIN_UNLOAD_SECONDS: "1" }, database));
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  beforeEach(() => {
    provider.reset();
    provider.script = (request) => {
      const users = messagesOf(request).filter((message) => message.role === "user");
      return text(`answer to ${contentText(users[users.length - 1] ?? { role: "user" })}`);
    };
  });

  async function list(): Promise<Summary[]> {
    const response = await app.api("/sessions");
    expect(response.status).toBe(200);
    return response.json<{ items: Summary[] }>().items;
  }

  async function summary(sessionId: string): Promise<Summary> {
    const found = (await list()).find((item) => item.id === sessionId);
    if (found === undefined) throw new Error(`session ${sessionId} is not listed`);
    return found;
  }

  async function fork(source: string, checkpointId: string) {
    const id = uuidv7();
    const response = await app.api(`/sessions/${id}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "fork", source_session_id: source, checkpoint_id: checkpointId },
    });
    return { id, response };
  }

  it("lists sessions newest activity first", async () => {
    const first = await app.createSession();
    const second = await app.createSession();
    const third = await app.createSession();
    await app.turn(first, "bring me to the top");
    const items = await list();
    const mine = items.map((item) => item.id).filter((id) => [first, second, third].includes(id));
    expect(mine).toEqual([first, third, second]);
    const times = items.map((item) => Date.parse(item.activity_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("unloads a quiet session but not a watched one; a history read does not reload it, the next prompt does", async () => {
    // Watched: created first, so it has been quiet at least as long as the unwatched one.
    const watched = await app.createSession();
    const watcher = await app.openStream(watched);
    const attached = await watcher.next();

    const quiet = await app.createSession();
    await app.turn(quiet, "before unload");
    const loaded = await summary(quiet);
    expect(loaded.cursor).not.toBeNull();
    const oldGeneration = loaded.cursor!.generation;

    await eventually("the quiet session to unload", async () =>
      (await summary(quiet)).cursor === null ? true : undefined,
    );
    // The watched session stays loaded, in the same generation, and the stream stays open.
    expect((await summary(watched)).cursor?.generation).toBe(attached.batch.generation);
    expect(watcher.closed).toBe(false);

    // History is read from storage without loading the actor.
    const history = await app.history(quiet);
    expect(userTexts(history.items)).toEqual(["before unload"]);
    expect((await summary(quiet)).cursor).toBeNull();

    // The next prompt reloads it: a new generation, the durable history before and after.
    await app.turn(quiet, "after unload");
    // A client resuming from before the unload gets a reset with the durable history.
    const reattached = await app.openStream(quiet, {
      lastEventId: `${oldGeneration}.${loaded.cursor!.sequence}`,
    });
    const page = (await reattached.next()).batch;
    expect(page.events[0]).toEqual({ type: "reset", data: { reason: "generation_changed" } });
    const reloaded = await summary(quiet);
    reattached.close();
    expect(reloaded.cursor?.generation).toBe(page.generation);
    expect(page.generation).not.toBe(oldGeneration);
    expect(userTexts(page.snapshot!.history.items)).toEqual(["before unload", "after unload"]);
    const seen = messagesOf(provider.lastRequest).map(contentText);
    expect(seen).toEqual(
      expect.arrayContaining(["before unload", "answer to before unload", "after unload"]),
    );

    // Once its watcher leaves, the watched session unloads too.
    watcher.close();
    await eventually("the watched session to unload", async () =>
      (await summary(watched)).cursor === null ? true : undefined,
    );
  });

  it("forks at a user entry: the new session's history ends there and the model continues from it", async () => {
    const source = await app.createSession();
    await app.turn(source, "first prompt");
    await app.turn(source, "second prompt");
    const history = await app.history(source);
    expect(history.items.map((entry) => entry.kind)).toEqual(["user", "assistant", "user", "assistant"]);
    const checkpoint = history.items[2]!.checkpoint_id;
    expect(checkpoint).not.toBeNull();

    const { id, response } = await fork(source, checkpoint!);
    expect(response.status).toBe(201);
    expect(response.headers.location).toBe(`/sessions/${id}`);
    expect(response.json()).toMatchObject({ id, parent_id: source, workspace: app.workspace });
    const forked = await app.history(id);
    expect(forked.items.map((entry) => [entry.kind, entryText(entry)])).toEqual([
      ["user", "first prompt"],
      ["assistant", "answer to first prompt"],
      ["user", "second prompt"],
    ]);
    expect((await summary(id)).parent_id).toBe(source);

    await app.turn(id, "third prompt");
    const sent = messagesOf(provider.lastRequest).map(contentText);
    expect(sent).toEqual(
      expect.arrayContaining(["first prompt", "answer to first prompt", "second prompt", "third prompt"]),
    );
    expect(sent).not.toContain("answer to second prompt");
    // The source is unchanged.
    expect((await app.history(source)).items).toHaveLength(4);
  });

  it("a fork reads like any session: the source's positions, ids, turns and continuations, a preview, paging", async () => {
    const source = await app.createSession();
    await app.turn(source, "first prompt");
    const again = await app.api(`/sessions/${source}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "continue" },
    });
    expect(again.status).toBe(202);
    await app.idle(source);
    await app.turn(source, "second prompt");
    const all = (await app.history(source)).items;
    expect(all.map((entry) => entry.kind)).toEqual([
      "user",
      "assistant",
      "continuation",
      "assistant",
      "user",
      "assistant",
    ]);
    const checkpoint = all[3]!;

    const { id, response } = await fork(source, checkpoint.checkpoint_id!);
    expect(response.status).toBe(201);
    const created = response.json<{ preview: { text: string; transcript_count: number } }>();
    expect(created.preview).toEqual({ text: "first prompt", transcript_count: 3, truncated: false });
    expect((await summary(id)).preview).toEqual(created.preview);

    // Every copied entry keeps its position, id, turn and input; the continuation is there.
    const copied = (await app.history(id)).items;
    const strip = (entry: HistoryEntry) => ({
      id: entry.id,
      position: entry.position,
      kind: entry.kind,
      turn_id: entry.turn_id,
      input_id: entry.input_id,
      checkpoint_id: entry.checkpoint_id,
      content: entry.content,
    });
    expect(copied.map(strip)).toEqual(all.slice(0, 4).map(strip));
    expect(copied[0]!.input_id).not.toBeNull();
    expect(copied[2]!.id).toBe(`continue-${copied[2]!.input_id}`);

    // Paging one position at a time visits each entry once, newest first.
    const seen: string[] = [];
    let page = await app.history(id, "limit=1");
    for (;;) {
      expect(page.items).toHaveLength(1);
      seen.unshift(page.items[0]!.id);
      if (page.older === null) break;
      page = await app.history(id, `limit=1&next=${encodeURIComponent(page.older)}`);
    }
    expect(seen).toEqual(copied.map((entry) => entry.id));
    const tail = (await app.api(`/sessions/${id}?tail=1`)).json<{ history: HistoryPage }>().history;
    expect(tail.items.map((entry) => entry.id)).toEqual([copied[3]!.id]);

    // A turn in the fork continues at the next position.
    await app.turn(id, "third prompt");
    const after = (await app.history(id)).items;
    expect(after.slice(4).map((entry) => [entry.kind, entry.position])).toEqual([
      ["user", copied[3]!.position + 1],
      ["assistant", copied[3]!.position + 2],
    ]);
  });

  it("forks at a tool call: the call gets the result 'not executed after branch checkpoint'", async () => {
    provider.queue(
      toolCalls([{ name: "write_file", args: { path: "fork-source.txt", content: "from the source" } }]),
      text("written"),
    );
    const source = await app.createSession();
    await app.turn(source, "write a file");
    const history = await app.history(source);
    expect(history.items.map((entry) => entry.kind)).toEqual([
      "user",
      "tool_call",
      "tool_result",
      "assistant",
    ]);
    const call = history.items[1]!;

    const { id, response } = await fork(source, call.checkpoint_id!);
    expect(response.status).toBe(201);
    const forked = await app.history(id);
    expect(forked.items.map((entry) => entry.kind)).toEqual(["user", "tool_call", "tool_result"]);
    const result = forked.items[2]!;
    expect(result.tool).toMatchObject({ name: "write_file", tool_call_id: call.tool!.tool_call_id });
    expect(result.content).toEqual([
      { kind: "json", field: "result", value: "not executed after branch checkpoint" },
    ]);

    await app.turn(id, "what happened?");
    const toolMessage = messagesOf(provider.lastRequest).find((message) => message.role === "tool");
    expect(toolMessage?.tool_call_id).toBe(call.tool!.tool_call_id);
    expect(contentText(toolMessage!)).toContain("not executed after branch checkpoint");
  });

  it("refuses a fork at an unknown checkpoint with 400 and creates nothing", async () => {
    const source = await app.createSession();
    await app.turn(source, "only prompt");
    const { id, response } = await fork(source, "no-such-checkpoint");
    expect(response.status).toBe(400);
    expect(response.headers["content-type"]).toBe("application/problem+json");
    expect(response.json().code).toBe("invalid_request");
    expect((await app.api(`/sessions/${id}`)).status).toBe(404);
    expect((await list()).map((item) => item.id)).not.toContain(id);
  });

  it("says in every snapshot and summary how the session was created, and a snapshot echoes the creation request", async () => {
    const body = {
      kind: "new",
      workspace: app.workspace,
      name: "echoed",
      system_prompt: "Be brief.",
      request_config: { temperature: 0.5 },
      approval_policy: { default: "ask", rules: [{ tool: "read_file", action: "allow" }] },
    };
    const source = uuidv7();
    const created = await app.api(`/sessions/${source}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body,
    });
    expect(created.status).toBe(201);
    // `submitted` is the body as sent: nothing the daemon chose (profile, model, MCP servers) is added.
    expect(created.json().creation).toEqual({ kind: "new", submitted: body });
    await app.turn(source, "only prompt");
    const snapshot = (await app.api(`/sessions/${source}`)).json();
    expect(snapshot.creation).toEqual({ kind: "new", submitted: body });
    // Summaries say how, not what was asked (a listing would repeat every system prompt).
    expect((await list()).find((item) => item.id === source)?.creation).toEqual({ kind: "new" });

    const checkpoint = (await app.history(source)).items[1]!.checkpoint_id!;
    const { id, response } = await fork(source, checkpoint);
    const creation = {
      kind: "fork",
      source_session_id: source,
      checkpoint_id: checkpoint,
      entry_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    };
    const submitted = { kind: "fork", source_session_id: source, checkpoint_id: checkpoint };
    expect(response.json().creation).toEqual({ ...creation, submitted });
    expect((await list()).find((item) => item.id === id)?.creation).toEqual(creation);

    // Stored with the session: the same after a restart.
    await app.restart({ crash: true });
    expect((await app.api(`/sessions/${id}`)).json().creation).toEqual({ ...creation, submitted });
    expect((await app.api(`/sessions/${source}`)).json().creation).toEqual({ kind: "new", submitted: body });
  });

  it("remembers a refused creation: a later GET of the id answers 404 with the decision, until it is created", async () => {
    const source = await app.createSession();
    await app.turn(source, "only prompt");
    const refusals = [
      {
        body: { kind: "new", workspace: "/no/such/dir" },
        status: 400,
        code: "invalid_request",
        says: "/no/such/dir",
      },
      {
        body: { kind: "fork", source_session_id: source, checkpoint_id: "99" },
        status: 400,
        code: "invalid_request",
        says: "checkpoint_id",
      },
      {
        body: { kind: "fork", source_session_id: uuidv7(), checkpoint_id: "1" },
        status: 404,
        code: "resource_not_found",
        says: "not found",
      },
    ];
    for (const refusal of refusals) {
      const id = uuidv7();
      const put = await app.api(`/sessions/${id}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: refusal.body,
      });
      expect(put.status).toBe(refusal.status);
      const get = await app.api(`/sessions/${id}`);
      expect(get.status).toBe(404);
      const answer = get.json<{ code: string; detail: string; rejected_creation: Record<string, unknown> }>();
      expect(answer.code).toBe("resource_not_found");
      expect(answer.detail).toContain(put.json<{ detail: string }>().detail);
      expect(answer.rejected_creation).toEqual({
        status: refusal.status,
        code: refusal.code,
        detail: put.json<{ detail: string }>().detail,
        rejected_at: expect.stringMatching(/Z$/),
      });
      expect(answer.rejected_creation.detail).toContain(refusal.says);
      const stream = await app.api(`/sessions/${id}`, { headers: { accept: "text/event-stream" } });
      expect(stream.status).toBe(404);
      expect(stream.json()).toEqual(answer);
    }

    // A refusal about the request, not the session, is not remembered.
    const unconditional = uuidv7();
    const put = await app.api(`/sessions/${unconditional}`, {
      method: "PUT",
      body: { kind: "new", workspace: app.workspace },
    });
    expect(put.status).toBe(428);
    expect((await app.api(`/sessions/${unconditional}`)).json()).not.toHaveProperty("rejected_creation");

    // The id stays free: a corrected request creates the session, and the refusal is forgotten.
    const retried = uuidv7();
    const bad = await app.api(`/sessions/${retried}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: "/no/such/dir" },
    });
    expect(bad.status).toBe(400);
    const good = await app.api(`/sessions/${retried}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.workspace },
    });
    expect(good.status).toBe(201);
    expect((await app.api(`/sessions/${retried}`)).status).toBe(200);
    await app.api(`/sessions/${retried}`, { method: "DELETE" });
    expect((await app.api(`/sessions/${retried}`)).json()).not.toHaveProperty("rejected_creation");
  });

  it("answers a creation of an existing id 412 whatever else it gets wrong, and remembers no refusal for the id", async () => {
    const existing = await app.createSession();
    const wrong = [
      { kind: "new", workspace: "/no/such/dir" },
      { kind: "new", workspace: app.workspace, provider_profile: "no-such-profile" },
      { kind: "fork", source_session_id: uuidv7(), checkpoint_id: "1" },
      { kind: "new", workspace: app.workspace },
    ];
    for (const body of wrong) {
      const put = await app.api(`/sessions/${existing}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body,
      });
      expect(put.status).toBe(412);
      expect(put.json<{ code: string; detail: string }>()).toMatchObject({
        code: "precondition_failed",
        detail: `session ${existing} already exists`,
      });
    }
    expect((await app.api(`/sessions/${existing}`)).status).toBe(200);
    await app.api(`/sessions/${existing}`, { method: "DELETE" });
    // Deleted, the id was never refused: a GET finds nothing, with no decision to tell.
    const gone = await app.api(`/sessions/${existing}`);
    expect(gone.status).toBe(404);
    expect(gone.json()).not.toHaveProperty("rejected_creation");
  });

  it("serves a session created after GETs of its id found nothing, a refused creation included, and answers each unknown id alike", async () => {
    const asked = uuidv7();
    expect((await app.api(`/sessions/${asked}`)).status).toBe(404);
    const put = await app.api(`/sessions/${asked}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.workspace },
    });
    expect(put.status).toBe(201);
    expect((await app.api(`/sessions/${asked}`)).status).toBe(200);
    await app.turn(asked, "after a miss");
    expect(userTexts((await app.history(asked)).items)).toEqual(["after a miss"]);

    const refused = uuidv7();
    const bad = await app.api(`/sessions/${refused}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: "/no/such/dir" },
    });
    expect(bad.status).toBe(400);
    expect((await app.api(`/sessions/${refused}`)).status).toBe(404);
    const good = await app.api(`/sessions/${refused}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.workspace },
    });
    expect(good.status).toBe(201);
    expect((await app.api(`/sessions/${refused}`)).status).toBe(200);
    expect((await list()).map((item) => item.id)).toEqual(expect.arrayContaining([asked, refused]));
  });

  it("answers 500 log_corrupt for a session whose stored log was tampered with, and serves the others", async () => {
    const victim = await app.createSession();
    await app.turn(victim, "to be tampered with");
    const bystander = await app.createSession();
    await app.turn(bystander, "untouched");
    await eventually("the victim to unload", async () =>
      (await summary(victim)).cursor === null ? true : undefined,
    );

    const countRows = async () =>
      Number(
        (await app.sql<{ n: number }>("SELECT count(*) AS n FROM transcript WHERE session = ?", [victim]))[0]!
          .n,
      );
    const rowsBefore = await countRows();
    const changed = await app.sql(
      "UPDATE transcript SET entry = replace(entry, 'to be tampered with', 'rewritten history') WHERE session = ? AND kind = 'user_input' RETURNING session",
      [victim],
    );
    expect(changed).toHaveLength(1);

    const snapshot = await app.api(`/sessions/${victim}`);
    expect(snapshot.status).toBe(500);
    expect(snapshot.headers["content-type"]).toBe("application/problem+json");
    expect(snapshot.json().code).toBe("log_corrupt");
    expect(String(snapshot.json().detail)).toMatch(/position 1\b/);
    for (const response of [
      await app.api(`/sessions/${victim}/history`),
      await app.api(`/sessions/${victim}/inputs/${uuidv7()}`, {
        method: "PUT",
        body: { kind: "message", text: "accept me" },
      }),
      await app.api(`/sessions/${victim}`, { headers: { accept: "text/event-stream" } }),
    ]) {
      expect(response.status).toBe(500);
      expect(response.json().code).toBe("log_corrupt");
    }
    // Nothing was repaired or appended, and other sessions are unaffected.
    expect((await app.api("/sessions")).status).toBe(200);
    expect(userTexts((await app.history(bystander)).items)).toEqual(["untouched"]);
    await app.turn(bystander, "still fine");
    expect(await countRows()).toBe(rowsBefore);
  });

  it("pages a snapshot's tail back through older tokens and forward through newer, each entry once", async () => {
    const sessionId = await app.createSession();
    for (let index = 0; index < 6; index++) await app.turn(sessionId, `prompt ${index}`);
    const full = await app.history(sessionId);
    expect(full.items).toHaveLength(12);

    const snapshot = await app.api(`/sessions/${sessionId}?tail=3`);
    expect(snapshot.status).toBe(200);
    const tail = snapshot.json<{ history: HistoryPage }>().history;
    expect(tail.items.map((entry) => entry.id)).toEqual(full.items.slice(-3).map((entry) => entry.id));
    expect(tail.newer).toBeNull();
    expect(tail.older).not.toBeNull();

    // New entries appended while paging do not shift or repeat anything.
    await app.turn(sessionId, "appended while paging");
    const pages: HistoryEntry[][] = [tail.items];
    let older = tail.older;
    while (older !== null) {
      const page = await app.history(sessionId, `limit=3&next=${encodeURIComponent(older)}`);
      expect(page.items.length).toBeGreaterThan(0);
      pages.unshift(page.items);
      older = page.older;
    }
    const visited = pages.flat().map((entry) => entry.id);
    expect(visited).toEqual(full.items.map((entry) => entry.id));

    // Forward from the start, the same entries once each, bounded by the first read.
    const forward: string[] = [];
    let page = await app.history(sessionId, "limit=4&after=0");
    forward.push(...page.items.map((entry) => entry.id));
    while (page.newer !== null) {
      page = await app.history(sessionId, `limit=4&next=${encodeURIComponent(page.newer)}`);
      forward.push(...page.items.map((entry) => entry.id));
    }
    expect(forward).toEqual((await app.history(sessionId)).items.map((entry) => entry.id));
  });
});
