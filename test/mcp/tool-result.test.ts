import { describe, expect, it } from "vitest";
import { toolOutputOf } from "../../src/mcp/tool-result.js";

describe("MCP tool results as tool outputs", () => {
  it("joins text parts and describes the parts a text result cannot carry", () => {
    expect(
      toolOutputOf({
        content: [
          { type: "text", text: "first" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource_link", uri: "file:///a.txt", name: "a.txt" },
          { type: "resource", resource: { uri: "file:///b.txt", text: "b's text" } },
          {
            type: "resource",
            resource: { uri: "file:///c.bin", blob: "AAA=", mimeType: "application/octet-stream" },
          },
        ],
      }),
    ).toBe(
      [
        "first",
        "[audio audio/wav, 3 bytes, not shown: tool results reach the model as text]",
        "[resource link file:///a.txt (a.txt)]",
        "[resource file:///b.txt]\nb's text",
        "[resource file:///c.bin application/octet-stream, 2 bytes, not shown]",
      ].join("\n"),
    );
  });

  it("keeps isError and falls back to structuredContent when there is no content", () => {
    expect(toolOutputOf({ content: [], structuredContent: { n: 1 }, isError: true })).toEqual({
      output: '{"n":1}',
      is_error: true,
    });
    expect(toolOutputOf({ content: [] })).toBe("");
  });
});
