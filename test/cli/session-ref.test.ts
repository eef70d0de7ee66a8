/**
 * Session references: unique prefixes for display, and resolving what a person typed.
 */
import { describe, expect, it } from "vitest";
import type { SessionSummary } from "../../src/api/session-snapshot.js";
import { CliError } from "../../src/cli/cli-error.js";
import { pickSession, uniquePrefixes } from "../../src/cli/session-ref.js";

function summary(id: string, name: string | null = null): SessionSummary {
  return {
    id,
    name,
    workspace: "/w",
    parent_id: null,
    parent_call_id: null,
    agent: null,
    created_at: "",
    activity_at: "",
    provider_profile: null,
    model: null,
    status: { phase: "idle", run_id: null, interrupt_requested: false, blocking_reason: null },
    cursor: null,
    preview: { text: "", transcript_count: 0, truncated: false },
    input_order: 0,
    usage: { prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, total_tokens: 0 },
    creation: { kind: "new" },
  };
}

const a = "01a22934-c991-732a-9431-178574c01836";
const b = "01a22934-c9f0-7001-8000-000000000000";
const c = "01b00000-0000-7000-8000-000000000000";

describe("session references", () => {
  it("gives each id the shortest prefix of at least 8 characters that no other id shares, never ending on a dash", () => {
    const prefixes = uniquePrefixes([a, b, c]);
    expect(prefixes.get(a)).toBe("01a22934-c99");
    expect(prefixes.get(b)).toBe("01a22934-c9f");
    expect(prefixes.get(c)).toBe("01b00000");
    expect(uniquePrefixes(["01a22934-aaaa", "01a22934-bbbb"]).get("01a22934-aaaa")).toBe("01a22934-a");
  });

  it("resolves a unique prefix, with or without dashes, and an exact name", () => {
    const sessions = [summary(a, "alpha"), summary(b), summary(c)];
    expect(pickSession(sessions, "01a22934-c99").id).toBe(a);
    expect(pickSession(sessions, "01a22934c9f").id).toBe(b);
    expect(pickSession(sessions, "01B").id).toBe(c);
    expect(pickSession(sessions, "alpha").id).toBe(a);
  });

  it("refuses an ambiguous prefix as a usage error that lists the candidates", () => {
    const sessions = [summary(a), summary(b), summary(c)];
    const error = (() => {
      try {
        pickSession(sessions, "01a2");
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toContain(a);
    expect((error as CliError).message).toContain(b);
    expect((error as CliError).message).not.toContain(c);
  });

  it("reports a reference that matches nothing as not found", () => {
    expect(() => pickSession([summary(a)], "ffff")).toThrow(/no session matches "ffff"/);
    try {
      pickSession([summary(a)], "ffff");
    } catch (error) {
      expect((error as CliError).exitCode).toBe(4);
    }
  });
});
