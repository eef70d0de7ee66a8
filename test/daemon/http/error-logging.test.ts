import { Writable } from "node:stream";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { startTestApp, token } from "./test-app.js";

describe("the daemon's HTTP app with the daemon's logger", () => {
  it("starts without a deprecation warning", async () => {
    const warnings: string[] = [];
    const collect = (warning: Error): void => {
      warnings.push(`${warning.name}: ${warning.message}`);
    };
    process.on("warning", collect);
    try {
      const t = await startTestApp({ token, loggerInstance: pino({ level: "silent" }) });
      await t.close();
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", collect);
    }
    expect(warnings.filter((warning) => /deprecat/i.test(warning))).toEqual([]);
  });

  it("logs an unexpected failure (with its cause) while the client gets a bare 500 problem", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(
          ...chunk
            .toString("utf8")
            .split("\n")
            .filter((line) => line !== ""),
        );
        done();
      },
    });
    const t = await startTestApp({ token, loggerInstance: pino(sink) });
    try {
      const response = await t.call("/boom");
      expect(response.status).toBe(500);
      const problem = (await response.json()) as { code: string; detail: string };
      expect(problem.code).toBe("internal_error");
      expect(problem.detail).not.toContain("/etc/passwd");
      const logged = lines.map((line) => JSON.parse(line) as { level: number; err?: { message: string } });
      expect(
        logged.some(
          (record) => record.level === 50 && record.err?.message.includes("secret internal detail"),
        ),
      ).toBe(true);
      // Ordinary requests are not logged one by one.
      await t.call("/server");
      expect(lines.filter((line) => line.includes('"/server"'))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
