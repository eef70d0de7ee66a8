/**
 * A long agent run through the daemon: one turn of many tool rounds (more than any former
 * default cap: a turn has no round cap unless config.json sets one), then the durable history
 * paged back and the session restarted, to show a long run neither loses nor repeats a step.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { HistoryEntry } from "./support/daemon-harness.js";
import { useSharedFixture } from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

const rounds = 150;

describe("a long run", () => {
  const shared = useSharedFixture();

  it(`completes ${rounds} tool rounds in one turn, with every call answered once and nothing lost on restart`, async () => {
    // Round i edits "line i" into "line i+1"; a tool that ran twice or not at all breaks the chain.
    shared.provider.script = (request) =>
      request.index < rounds
        ? toolCalls([
            {
              name: "edit_file",
              args: {
                path: "log.txt",
                old_text: `line ${request.index}`,
                new_text: `line ${request.index + 1}`,
              },
            },
          ])
        : text("All rounds done.");
    const sessionId = await shared.app.createSession();
    writeFileSync(join(shared.app.workspace, "log.txt"), "line 0\n");
    const stream = await shared.app.openStream(sessionId);
    await shared.app.prompt(sessionId, "edit the log many times");
    const frames = await stream.readUntil((event) => event.type === "turn_completed", 120_000);
    stream.close();
    const completed = eventsOf(frames).find((event) => event.type === "turn_completed");
    expect(completed?.data).toMatchObject({ state: "completed", outcome: "finished" });

    expect(shared.provider.requests).toHaveLength(rounds + 1);
    expect(readFileSync(join(shared.app.workspace, "log.txt"), "utf8")).toBe(`line ${rounds}\n`);

    const before = await allHistory(sessionId);
    const calls = before.filter((entry) => entry.kind === "tool_call");
    const results = before.filter((entry) => entry.kind === "tool_result");
    expect(calls).toHaveLength(rounds);
    expect(results).toHaveLength(rounds);
    expect(new Set(results.map((entry) => entry.tool?.tool_call_id))).toEqual(
      new Set(calls.map((entry) => entry.tool?.tool_call_id)),
    );

    await shared.app.restart({ crash: true });
    const after = await allHistory(sessionId);
    expect(after.map((entry) => entry.id)).toEqual(before.map((entry) => entry.id));
    // The turn had ended: the restart recovers nothing and asks the model nothing.
    expect(shared.provider.requests).toHaveLength(rounds + 1);
    expect(after.filter((entry) => entry.kind === "note")).toHaveLength(0);
  });

  /** Every history entry, paged backwards with small pages. */
  async function allHistory(sessionId: string): Promise<HistoryEntry[]> {
    const pages: HistoryEntry[][] = [];
    let next: string | null = null;
    do {
      const query: string = next === null ? "limit=7" : `limit=7&next=${next}`;
      const page: { items: HistoryEntry[]; older: string | null } = (
        await shared.app.api(`/sessions/${sessionId}/history?${query}`)
      ).json<{
        items: HistoryEntry[];
        older: string | null;
      }>();
      pages.unshift(page.items);
      next = page.older;
    } while (next !== null);
    return pages.flat();
  }
});
