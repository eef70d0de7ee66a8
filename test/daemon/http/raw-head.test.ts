import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { headInRawRequest } from "../../../src/daemon/http/raw-head.js";

const tokenChar = fc.constantFrom(..."abcxyzABZ0129-_.!#$%&'*+^`|~".split(""));
const headerName = fc.string({ unit: tokenChar, minLength: 1, maxLength: 12 });
// Visible ASCII and spaces inside, no blank at either end (the reader trims those).
const headerValue = fc
  .string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    maxLength: 30,
  })
  .map((value) => value.trim());
const headers = fc.array(fc.tuple(headerName, headerValue), { maxLength: 12 });

function head(requestLine: string, lines: Array<[string, string]>): string {
  return `${requestLine}\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;
}

describe("reading the head of a request Node could not parse", () => {
  it("reads every header line of a head that starts with its request line, and nothing of the body", () => {
    fc.assert(
      fc.property(headers, fc.constantFrom("GET", "POST", "PUT"), fc.string(), (lines, method, body) => {
        const raw = Buffer.from(`${head(`${method} /x HTTP/1.1`, lines)}${body}`, "latin1");
        expect(headInRawRequest(raw)).toEqual({ rawHeaders: lines.flat(), method, whole: true });
      }),
    );
  });

  it("reads the tail of a head that began in an earlier read as a part only", () => {
    fc.assert(
      fc.property(headers, fc.nat(), (lines, cut) => {
        const from = lines.length === 0 ? 0 : cut % lines.length;
        const tail = lines.slice(from);
        const raw = Buffer.from(
          `${tail.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`,
          "latin1",
        );
        expect(headInRawRequest(raw)).toEqual({ rawHeaders: tail.flat(), method: null, whole: false });
      }),
    );
  });

  it("keeps the head of a request line it cannot parse, and skips lines that are no header", () => {
    const raw = Buffer.from(
      "GET /server HTTP/1.1 extra\r\nNo Colon\r\nHost: 127.0.0.1:1\r\n folded\r\nName : spaced\r\nOrigin:  http://a.example  \r\n\r\n",
      "latin1",
    );
    expect(headInRawRequest(raw)).toEqual({
      rawHeaders: ["Host", "127.0.0.1:1", "Origin", "http://a.example"],
      method: "GET",
      whole: true,
    });
  });

  it("reads a head cut short (over Node's size limit) up to where the bytes stop", () => {
    const raw = Buffer.from(
      `POST /small HTTP/1.1\r\nOrigin: http://evil.example\r\nX-Big: ${"a".repeat(70_000)}`,
    );
    const found = headInRawRequest(raw);
    expect(found?.whole).toBe(true);
    expect(found?.rawHeaders.slice(0, 2)).toEqual(["Origin", "http://evil.example"]);
  });

  it("reads nothing from no bytes", () => {
    expect(headInRawRequest(undefined)).toBeNull();
    expect(headInRawRequest(Buffer.alloc(0))).toBeNull();
  });
});
