import { describe, expect, it } from "vitest";
import { StreamCursorError } from "../../../src/daemon/errors.js";
import { formatEventId, parseLastEventId, parseStreamCursor } from "../../../src/daemon/stream/cursor.js";
import { thrownBy } from "../../support/rejection.js";

const G = "AbCdEfGhIjKlMnOpQr_-09";

function failure(run: () => unknown): StreamCursorError {
  return thrownBy(run, (error) => error instanceof StreamCursorError, "expected a StreamCursorError");
}

describe("stream cursor parsing", () => {
  it("reads after_generation and after_seq as a cursor", () => {
    expect(parseStreamCursor({ after_generation: G, after_seq: "17" }, undefined)).toEqual({
      generation: G,
      sequence: 17,
    });
  });

  it("treats a request without any cursor as an initial attach", () => {
    expect(parseStreamCursor({}, undefined)).toBeNull();
    expect(parseStreamCursor({}, "")).toBeNull();
  });

  it("accepts after_seq from 0 up to 2^53-1", () => {
    expect(parseStreamCursor({ after_generation: G, after_seq: "0" }, undefined)?.sequence).toBe(0);
    expect(
      parseStreamCursor({ after_generation: G, after_seq: "9007199254740991" }, undefined)?.sequence,
    ).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("rejects after_seq that is negative, fractional, too large, signed or not a number", () => {
    for (const after_seq of [
      "-1",
      "1.5",
      "9007199254740992",
      "+3",
      "1e3",
      "",
      " 1",
      "abc",
      "99999999999999999",
    ]) {
      const error = failure(() => parseStreamCursor({ after_generation: G, after_seq }, undefined));
      expect(error.parameter).toBe("after_seq");
      expect(error.detail).toMatch(/after_seq/);
    }
  });

  it("rejects a generation that is not 22 characters of base64url", () => {
    for (const after_generation of ["short", `${G}x`, "AbCdEfGhIjKlMnOpQr+/09", "AbCdEfGhIjKlMnOpQr==09"]) {
      const error = failure(() => parseStreamCursor({ after_generation, after_seq: "1" }, undefined));
      expect(error.parameter).toBe("after_generation");
      expect(error.detail).toMatch(/invalid replay generation/);
    }
  });

  it("rejects after_generation without after_seq", () => {
    const error = failure(() => parseStreamCursor({ after_generation: G }, undefined));
    expect(error.detail).toBe("after_generation requires after_seq");
  });

  it("validates after_seq alone and then ignores it as an initial attach", () => {
    expect(parseStreamCursor({ after_seq: "5" }, undefined)).toBeNull();
    expect(failure(() => parseStreamCursor({ after_seq: "x" }, undefined)).parameter).toBe("after_seq");
  });

  it("rejects a repeated query value", () => {
    expect(
      failure(() => parseStreamCursor({ after_generation: [G, G], after_seq: "1" }, undefined)).parameter,
    ).toBe("after_generation");
  });

  it("resumes from a Last-Event-ID of the form generation.cursor when the query has no cursor", () => {
    expect(parseStreamCursor({}, `${G}.42`)).toEqual({ generation: G, sequence: 42 });
    expect(parseLastEventId(formatEventId(G, 7))).toEqual({ generation: G, sequence: 7 });
  });

  it("prefers the query parameters over Last-Event-ID", () => {
    expect(parseStreamCursor({ after_generation: G, after_seq: "3" }, "garbage")).toEqual({
      generation: G,
      sequence: 3,
    });
    expect(parseStreamCursor({ after_seq: "3" }, `${G}.9`)).toBeNull();
  });

  it("rejects a malformed Last-Event-ID", () => {
    for (const header of [
      "42",
      `${G}`,
      `${G}.`,
      `${G}.-1`,
      `${G}.1.2`,
      `short.1`,
      `${G}.9007199254740992`,
      [`${G}.1`],
    ]) {
      const error = failure(() => parseStreamCursor({}, header));
      expect(error.parameter).toBe("Last-Event-ID");
      expect(error.detail).toMatch(/Last-Event-ID/);
    }
  });

  it("formats the frame id as generation.cursor", () => {
    expect(formatEventId(G, 0)).toBe(`${G}.0`);
  });
});
