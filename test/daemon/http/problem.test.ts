import { describe, expect, it } from "vitest";
import { problemStatuses } from "../../../src/api/problem.js";
import { ProblemError, problem, problemBody } from "../../../src/daemon/http/problem.js";

describe("problem codes", () => {
  it("carry the statuses of the HTTP contract", () => {
    expect(problemStatuses).toMatchObject({
      invalid_request: 400,
      authentication_required: 401,
      host_forbidden: 403,
      resource_not_found: 404,
      method_not_allowed: 405,
      not_acceptable: 406,
      input_conflict: 409,
      session_busy: 409,
      instance_changed: 409,
      continuation_expired: 410,
      identity_expired: 410,
      precondition_failed: 412,
      request_body_too_large: 413,
      unsupported_media_type: 415,
      precondition_required: 428,
      queue_full: 429,
      log_corrupt: 500,
      request_unavailable: 503,
      daemon_unavailable: 503,
      input_unknown: 404,
      message_empty: 400,
      identity_future: 400,
      unsupported_encoding: 415,
      origin_forbidden: 403,
      request_timeout: 408,
      expectation_failed: 417,
      request_headers_too_large: 431,
    });
  });

  it("build the wire body with a title per code", () => {
    expect(problem("queue_full", "32 inputs are waiting").body()).toEqual({
      type: "about:blank",
      title: "Queue full",
      status: 429,
      detail: "32 inputs are waiting",
      code: "queue_full",
    });
    expect(
      new ProblemError(503, "request_unavailable", "storage failed", { title: "Busy" }).body().title,
    ).toBe("Busy");
    expect(problemBody(400, "message_empty", "text is blank").title).toBe("Empty message");
  });
});
