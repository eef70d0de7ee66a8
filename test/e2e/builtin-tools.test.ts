/**
 * The search and patch tools end to end, in each of the four protocols: a turn whose model calls
 * `grep` (allowed without asking) and then `apply_patch` (asked; the session's policy allows it
 * here) gets grep's matches, edits two files in one call, and the model receives both results;
 * the plan a `todo_write` call sets is in the snapshot's `todos` and survives a restart. And
 * `web_fetch` through the daemon: refused for a loopback server by default, fetched once
 * config.json's `webFetch.allowAddresses` lists it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type FakeProtocol,
  reasoning,
  stream,
  text,
  textPart,
  toolCallPart,
  toolCalls,
} from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import { compactionProfile, endsWithToolResults } from "./support/compaction-script.js";
import type { HistoryEntry } from "./support/daemon-harness.js";
import { toolResultText, useFakeProvider } from "./support/fixture.js";

const protocols: FakeProtocol[] = ["chat_completions", "responses", "anthropic", "gemini"];

/** The model: grep first, then apply_patch and todo_write, then a closing text. */
function toolScript(protocol: FakeProtocol): (request: RecordedRequest) => ReturnType<typeof stream> {
  let n = 0;
  return (request) => {
    n += 1;
    const thought = { signature: `sig-${n}`, encryptedContent: `enc-${n}`, id: `rs_${n}` };
    const signed = (k: number) => (protocol === "gemini" && k === 0 ? { signature: `gcall-${n}` } : {});
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (request.rawBody.includes("applied 2 edit(s)")) {
      return reasoning(`done ${n}`, stream([textPart("patched", signed(0))]), thought);
    }
    if (!endsWithToolResults(protocol, body)) {
      const call = toolCallPart({ name: "grep", args: { pattern: "needle", glob: "*.txt" }, ...signed(0) });
      return reasoning(`searching ${n}`, stream([call]), thought);
    }
    const calls = [
      toolCallPart({
        name: "apply_patch",
        args: {
          edits: [
            { path: "a.txt", old_text: "needle one", new_text: "thread one" },
            { path: "b.txt", old_text: "needle two", new_text: "thread two" },
          ],
        },
        ...signed(0),
      }),
      toolCallPart({
        name: "todo_write",
        args: { todos: [{ content: "replace the needles", status: "completed" }] },
        ...signed(1),
      }),
    ];
    return reasoning(`patching ${n}`, stream(calls), thought);
  };
}

describe("search and patch tools", () => {
  const fake = useFakeProvider();

  describe.each(protocols)("%s", (protocol) => {
    it("runs grep, then apply_patch across two files and todo_write, and the plan is in the snapshot", async () => {
      const app = await fake.daemon(
        { providers: { main: compactionProfile(protocol, fake.provider) } },
        toolScript(protocol),
      );
      writeFileSync(join(app.workspace, "a.txt"), "needle one\n");
      writeFileSync(join(app.workspace, "b.txt"), "needle two\n");
      writeFileSync(join(app.workspace, "c.md"), "needle three\n");
      const id = await app.createSession({
        approval_policy: { rules: [{ tool: "apply_patch", action: "allow" }] },
      });
      await app.turn(id, "replace the needles");

      const items = (await app.history(id)).items;
      const result = (name: string): string =>
        toolResultText(items.find((entry) => entry.kind === "tool_result" && entry.tool?.name === name));
      expect(result("grep")).toBe("a.txt:1: needle one\nb.txt:1: needle two");
      expect(result("apply_patch")).toBe("applied 2 edit(s) to 2 file(s): edited a.txt, edited b.txt");
      expect(readFileSync(join(app.workspace, "a.txt"), "utf8")).toBe("thread one\n");
      expect(readFileSync(join(app.workspace, "b.txt"), "utf8")).toBe("thread two\n");
      const last = fake.provider.requests.at(-1)?.rawBody ?? "";
      expect(last).toContain("a.txt:1: needle one");
      expect(last).toContain("applied 2 edit(s)");
      const todos = [{ content: "replace the needles", status: "completed" }];
      expect((await app.api(`/sessions/${id}?tail=0`)).json<{ todos: unknown }>().todos).toEqual(todos);
      await app.restart({ crash: false });
      expect((await app.api(`/sessions/${id}?tail=0`)).json<{ todos: unknown }>().todos).toEqual(todos);
    });
  });

  it("fetches a loopback server through the daemon only when config.json allows its address", async () => {
    const server = createServer((_request, response) => {
      response.setHeader("content-type", "text/html");
      response.end("<h1>Local page</h1>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const results: string[] = [];
      for (const config of [{}, { webFetch: { allowAddresses: ["127.0.0.1/32"] } }]) {
        const app = await fake.daemon({ env: { SKEIN_SANDBOX_NETWORK: "1" }, config });
        fake.provider.queue(
          toolCalls([{ name: "web_fetch", args: { url }, id: "call_fetch" }]),
          text("fetched"),
        );
        const id = await app.createSession({ approval_policy: { default: "allow" } });
        await app.turn(id, "fetch it");
        const entry = (await app.history(id)).items.find((item: HistoryEntry) => item.kind === "tool_result");
        results.push(String(entry?.content.find((part) => part.field === "result")?.value));
      }
      expect(results[0]).toMatch(/refused: 127\.0\.0\.1 is 127\.0\.0\.1, a loopback address/);
      expect(results[1]).toBe(`${url} (200, text/html)\n\n# Local page`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
