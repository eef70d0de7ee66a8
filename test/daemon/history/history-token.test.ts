import { describe, expect, it } from "vitest";
import { HistoryTokenExpiredError, HistoryTokenInvalidError } from "../../../src/daemon/errors.js";
import {
  defaultHistoryTokenTtlMs,
  type HistoryTokenPayload,
  signHistoryToken,
  verifyHistoryToken,
} from "../../../src/daemon/history/history-token.js";
import { toDaemonProblem } from "../../../src/daemon/routes/daemon-problem.js";

const secret = Buffer.from("0123456789abcdef0123456789abcdef");
const issuedAt = 1_750_000_000_000;
const payload: HistoryTokenPayload = {
  sessionId: "s1",
  limit: 3,
  direction: "older",
  bound: 17,
  upper: 40,
  issuedAt,
};
const expected = { secret, sessionId: "s1", limit: 3, now: issuedAt + 1000 };

describe("history tokens", () => {
  it("round-trips the payload for the session and limit it was issued for", () => {
    const token = signHistoryToken(payload, secret);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyHistoryToken(token, expected)).toEqual(payload);
    expect(
      verifyHistoryToken(signHistoryToken({ ...payload, direction: "newer" }, secret), expected).direction,
    ).toBe("newer");
  });

  it("rejects a token of another session as invalid", () => {
    const token = signHistoryToken(payload, secret);
    expect(() => verifyHistoryToken(token, { ...expected, sessionId: "s2" })).toThrow(
      HistoryTokenInvalidError,
    );
  });

  it("rejects a token issued for another limit as invalid", () => {
    const token = signHistoryToken(payload, secret);
    expect(() => verifyHistoryToken(token, { ...expected, limit: 100 })).toThrow(HistoryTokenInvalidError);
  });

  it("rejects a token signed with another secret (another daemon instance) as invalid", () => {
    const token = signHistoryToken(payload, Buffer.from("another secret"));
    expect(() => verifyHistoryToken(token, expected)).toThrow(HistoryTokenInvalidError);
  });

  it("rejects a token whose payload was edited, even with a still-valid shape", () => {
    const token = signHistoryToken(payload, secret);
    const [, sig] = token.split(".");
    const forged = Buffer.from(
      JSON.stringify({ v: 1, s: "s1", l: 3, d: "o", b: 17, u: 99, t: issuedAt }),
    ).toString("base64url");
    expect(() => verifyHistoryToken(`${forged}.${sig}`, expected)).toThrow(HistoryTokenInvalidError);
    const flipped = token.slice(0, 5) + (token[5] === "A" ? "B" : "A") + token.slice(6);
    expect(() => verifyHistoryToken(flipped, expected)).toThrow(HistoryTokenInvalidError);
  });

  it("rejects garbage of every shape as invalid, never with another error", () => {
    for (const garbage of ["", ".", "abc", "a.b.c", "!!!.???", `${"A".repeat(40)}.`, ".AAAA"]) {
      expect(() => verifyHistoryToken(garbage, expected), garbage).toThrow(HistoryTokenInvalidError);
    }
  });

  it("answers 400 for an invalid token and 410 for an expired one, through the catalogue", () => {
    expect(toDaemonProblem(new HistoryTokenInvalidError("x"))).toMatchObject({
      status: 400,
      code: "invalid_request",
    });
    expect(toDaemonProblem(new HistoryTokenExpiredError(0, 1))).toMatchObject({
      status: 410,
      code: "continuation_expired",
    });
  });

  it("expires a genuine token after the default hour, and after a shorter TTL when asked", () => {
    const token = signHistoryToken(payload, secret);
    expect(verifyHistoryToken(token, { ...expected, now: issuedAt + defaultHistoryTokenTtlMs })).toEqual(
      payload,
    );
    expect(() =>
      verifyHistoryToken(token, { ...expected, now: issuedAt + defaultHistoryTokenTtlMs + 1 }),
    ).toThrow(HistoryTokenExpiredError);
    expect(() => verifyHistoryToken(token, { ...expected, now: issuedAt + 5001, ttlMs: 5000 })).toThrow(
      HistoryTokenExpiredError,
    );
  });

  it("calls an expired token of another session invalid, not expired", () => {
    const token = signHistoryToken(payload, secret);
    expect(() =>
      verifyHistoryToken(token, {
        ...expected,
        sessionId: "s2",
        now: issuedAt + defaultHistoryTokenTtlMs * 2,
      }),
    ).toThrow(HistoryTokenInvalidError);
  });
});
