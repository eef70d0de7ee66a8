import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readAll } from "../../src/cli/stdin-text.js";

describe("reading all of stdin", () => {
  it("joins buffer chunks, even a character split between two", async () => {
    const bytes = Buffer.from("héllo\n", "utf8");
    expect(await readAll(Readable.from([bytes.subarray(0, 2), bytes.subarray(2)]))).toBe("héllo\n");
  });

  it("accepts string chunks", async () => {
    expect(await readAll(Readable.from(["a", "b"], { objectMode: true }))).toBe("ab");
  });

  it("is empty for an empty stream", async () => {
    expect(await readAll(Readable.from([]))).toBe("");
  });
});
