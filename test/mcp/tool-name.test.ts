import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isMcpServerName } from "../../src/home/mcp-config.js";
import { mcpToolName, portableToolName } from "../../src/mcp/tool-name.js";

const serverName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/).filter((name) => isMcpServerName(name));

describe("MCP tool names", () => {
  it("keeps a name that already fits as <server>__<tool>", () => {
    expect(mcpToolName("fs", "read_text_file")).toBe("fs__read_text_file");
    expect(mcpToolName("example", "multi-greet")).toBe("example__multi-greet");
  });

  it("replaces characters no provider takes and adds a hash of the original name", () => {
    const name = mcpToolName("api", "items.get/v2:by-id");
    expect(name).toMatch(/^api__items_get_v2_by-id_[0-9a-f]{8}$/);
    // Two tools that clean up to the same text still get different names.
    expect(mcpToolName("api", "items_get_v2_by-id")).toBe("api__items_get_v2_by-id");
    expect(name).not.toBe(mcpToolName("api", "items.get/v2.by-id"));
  });

  it("cuts an overlong name to 64 characters, keeping it unique", () => {
    const long = "x".repeat(100);
    expect(mcpToolName("server", long)).toHaveLength(64);
    expect(mcpToolName("server", long)).not.toBe(mcpToolName("server", `${long}y`));
  });

  it("always fits every provider's rule, is stable, and never maps two tools of a server to one name", () => {
    fc.assert(
      fc.property(
        serverName,
        fc.string({ maxLength: 200 }),
        fc.string({ maxLength: 200 }),
        (server, a, b) => {
          const first = mcpToolName(server, a);
          expect(first).toMatch(portableToolName);
          expect(first.startsWith(`${server}__`)).toBe(true);
          expect(mcpToolName(server, a)).toBe(first);
          if (a !== b) expect(mcpToolName(server, b)).not.toBe(first);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
