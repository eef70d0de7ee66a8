import pc from "picocolors";
import { describe, expect, it } from "vitest";
import { formatLogLine } from "../../../src/cli/render/log-line.js";

const plain = pc.createColors(false);

describe("formatLogLine", () => {
  it("turns a pino record into time, level, message and its other fields", () => {
    const time = new Date(2026, 10, 29, 9, 5, 7, 42).getTime();
    const line = JSON.stringify({
      level: 40,
      time,
      pid: 7,
      msg: "slow client cut off",
      session: "abc",
      bytes: 12,
    });
    expect(formatLogLine(line, plain)).toBe("09:05:07.042 WARN  slow client cut off session=abc bytes=12");
  });

  it("quotes string values with spaces and prints an error's stack", () => {
    const line = JSON.stringify({
      level: 50,
      time: 0,
      msg: "session actor crashed",
      detail: "two words",
      err: { type: "Error", message: "boom", stack: "Error: boom\n    at f (x.js:1:1)" },
    });
    const formatted = formatLogLine(line, plain);
    expect(formatted).toContain(
      'ERROR session actor crashed detail="two words" err=\nError: boom\n    at f (x.js:1:1)',
    );
  });

  it("leaves anything that is not a pino record as it is", () => {
    for (const line of ["skein daemon: another Skein daemon is running", "[1,2]", '{"msg":"no level"}', ""]) {
      expect(formatLogLine(line, plain)).toBe(line);
    }
  });
});
