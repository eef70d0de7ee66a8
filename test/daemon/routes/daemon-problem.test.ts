/**
 * How storage failures become answers: every failure that means "the storage cannot serve this
 * now" (PostgreSQL restarting, a terminated backend, a refused connection, a lost connection,
 * SQLite busy or full), and any statement the database refused, is a 503 `request_unavailable`
 * that says when to try again.
 */
import { describe, expect, it } from "vitest";
import { SessionUnavailableError } from "../../../src/daemon/errors.js";
import { ProblemError } from "../../../src/daemon/http/problem.js";
import { toDaemonProblem } from "../../../src/daemon/routes/daemon-problem.js";
import { GroupCommitFailedError } from "../../../src/log/errors.js";

/** An error as the drivers raise them: a message, and a code (and PostgreSQL's severity). */
function driverError(message: string, code?: string, severity?: string): Error {
  return Object.assign(
    new Error(message),
    code === undefined ? {} : { code },
    severity === undefined ? {} : { severity },
  );
}

const unavailable: Array<[string, unknown]> = [
  [
    "a terminated backend (57P01)",
    driverError("terminating connection due to administrator command", "57P01", "FATAL"),
  ],
  ["a server shutting down (57P03)", driverError("the database system is shutting down", "57P03", "FATAL")],
  ["a refused connection", driverError("connect ECONNREFUSED 127.0.0.1:5432", "ECONNREFUSED")],
  ["a connection lost mid-query", driverError("Connection terminated unexpectedly")],
  [
    "a client whose connection failed while checked out",
    driverError("Client has encountered a connection error and is not queryable"),
  ],
  [
    "a group commit whose connection failed",
    new GroupCommitFailedError("s", driverError("Connection terminated unexpectedly")),
  ],
  ["SQLite busy", driverError("database is locked", "SQLITE_BUSY")],
  [
    "a constraint PostgreSQL refused",
    driverError("duplicate key value violates unique constraint", "23505", "ERROR"),
  ],
];

describe("storage failures as problems", () => {
  for (const [name, error] of unavailable) {
    it(`answers ${name} with 503 request_unavailable and Retry-After`, () => {
      const answer = toDaemonProblem(error);
      expect(answer).toBeInstanceOf(ProblemError);
      const problem = answer as ProblemError;
      expect([problem.status, problem.code]).toEqual([503, "request_unavailable"]);
      expect(problem.headers["retry-after"]).toBe("1");
    });
  }

  it("answers a session that cannot be served now (its actor stopping again) with 503 and Retry-After", () => {
    const problem = toDaemonProblem(new SessionUnavailableError("s")) as ProblemError;
    expect([problem.status, problem.code, problem.headers["retry-after"]]).toEqual([
      503,
      "request_unavailable",
      "1",
    ]);
  });

  it("leaves a failure that is not the storage's to the 500 handler", () => {
    const bug = new TypeError("undefined is not a function");
    expect(toDaemonProblem(bug)).toBe(bug);
  });
});
