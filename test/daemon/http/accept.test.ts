import { describe, expect, it } from "vitest";
import { negotiate } from "../../../src/daemon/http/accept.js";

describe("negotiate", () => {
  it("gives JSON to clients that accept it or say nothing", () => {
    for (const accept of [
      undefined,
      "",
      "*/*",
      "application/json",
      "application/*",
      "text/html, */*;q=0.8",
    ]) {
      expect(negotiate(accept, true), String(accept)).toBe("json");
    }
  });

  it("gives the event stream only where supported and explicitly asked for", () => {
    expect(negotiate("text/event-stream", true)).toBe("event-stream");
    expect(negotiate("text/event-stream, application/json", true)).toBe("event-stream");
    expect(negotiate("application/json, text/event-stream;q=0.5", true)).toBe("json");
    expect(negotiate("text/*", true)).toBe("event-stream");
    expect(negotiate("text/event-stream", false)).toBeNull();
  });

  it("lets the most specific range decide, so q=0 excludes a type", () => {
    expect(negotiate("*/*, application/json;q=0", false)).toBeNull();
    expect(negotiate("application/*;q=0, application/json", false)).toBe("json");
    expect(negotiate("TEXT/EVENT-STREAM", true)).toBe("event-stream");
  });

  it("refuses what allows neither", () => {
    expect(negotiate("text/html", true)).toBeNull();
    expect(negotiate("image/png, text/plain", false)).toBeNull();
  });
});
