import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { libraryExample } from "./library-example.js";

describe("the library example of docs/library.md", () => {
  let provider: FakeProvider;
  let dir: string;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    dir = mkdtempSync(join(tmpdir(), "skein-library-example-"));
  });

  afterAll(async () => {
    await provider.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs a tool-using turn and restores it, verified, from the log", async () => {
    provider.queue(
      toolCalls([{ name: "write_file", args: { path: "hello.txt", content: "hi" } }]),
      text("I created hello.txt."),
    );
    const { result, state, head } = await libraryExample(
      provider.baseUrlWith("v1"),
      join(dir, "log.sqlite"),
      dir,
    );
    expect(result).toBe("finished");
    expect(readFileSync(join(dir, "hello.txt"), "utf8")).toBe("hi");
    expect(state.head_hash).toBe(head.hash);
    expect(state.system_prompt).toBe("You are a careful coding agent.");
    expect(state.history.map((item) => item.type)).toEqual([
      "message",
      "tool_call",
      "tool_result",
      "message",
    ]);
    expect(state.request_count).toBe(2);
  });
});
