import { describe, expect, it } from "vitest";
import { ContextAccount } from "../../../src/daemon/compaction/context-accounting.js";
import { estimateTextTokens } from "../../../src/model/token-estimate.js";
import type { ToolMeta } from "../../../src/model/tools.js";

const schema = { type: "object", properties: { path: { type: "string" } }, additionalProperties: false };

/** The overhead estimate of `tools` (no system prompt). */
function overheadOf(tools: readonly ToolMeta[]): number {
  const account = new ContextAccount();
  account.setOverhead(null, tools);
  return account.overhead;
}

describe("the context account's overhead", () => {
  it("counts each tool's name, description and schema, the same for tools made anew each turn", () => {
    const tool = (): ToolMeta => ({ name: "read_file", description: "Read a file.", input_schema: schema });
    const first = overheadOf([tool()]);
    expect(first).toBeGreaterThanOrEqual(
      estimateTextTokens(`read_fileRead a file.${JSON.stringify(schema)}`),
    );
    expect(overheadOf([tool()])).toBe(first);
    expect(overheadOf([tool(), tool()])).toBe(2 * first);
  });

  it("counts a changed description or another schema anew", () => {
    const short = overheadOf([{ name: "t", description: "Short.", input_schema: schema }]);
    const long = overheadOf([
      { name: "t", description: "A much longer description. ".repeat(20), input_schema: schema },
    ]);
    expect(long).toBeGreaterThan(short);
    const wider = {
      ...schema,
      properties: { path: { type: "string" }, other: { type: "string", description: "x".repeat(400) } },
    };
    expect(overheadOf([{ name: "t", description: "Short.", input_schema: wider }])).toBeGreaterThan(short);
  });
});
