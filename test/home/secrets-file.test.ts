/**
 * secrets.json's format: strict parsing that names the problem but never a key, the absent file
 * as no keys, and atomic 0600 writes that read back as written.
 */
import { statSync } from "node:fs";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  apiKeyProblem,
  parseSecretsFile,
  readSecretsFile,
  SecretsFileError,
  writeSecretsFile,
} from "../../src/home/secrets-file.js";
import { newHome, removeTempRoots } from "../daemon/process/temp-home.js";

afterEach(removeTempRoots);

const path = "/h/secrets.json";
const profileName = fc.stringMatching(/^[A-Za-z0-9._-]{1,64}$/);
const apiKey = fc.stringMatching(/^[!-~]{1,200}$/);

describe("parseSecretsFile", () => {
  it("refuses what is not a secrets file, naming the problem", () => {
    const cases: Array<[string, RegExp]> = [
      ["{", /is not valid JSON/],
      ["[]", /expected a JSON object/],
      ['{"apiKeys":{}}', /"version" must be 1/],
      ['{"version":1,"apiKeys":[]}', /"apiKeys" must be an object/],
      ['{"version":1,"apiKeys":{"bad name":"k"}}', /"bad name" is not a profile name/],
      ['{"version":1,"apiKeys":{"p":7}}', /profile "p": the key is not a string/],
      ['{"version":1,"apiKeys":{"p":""}}', /profile "p": the API key is empty/],
      ['{"version":1,"apiKeys":{"p":"sk with space"}}', /profile "p": the API key contains spaces/],
    ];
    for (const [text, message] of cases) {
      expect(() => parseSecretsFile(text, path)).toThrow(SecretsFileError);
      expect(() => parseSecretsFile(text, path)).toThrow(message);
    }
  });

  it("never quotes a key in its errors, whatever the broken text", () => {
    fc.assert(
      // Keys long enough not to occur in the message's own words by chance.
      fc.property(
        fc.stringMatching(/^sk-[A-Za-z0-9_]{12,60}$/),
        fc.integer({ min: 0, max: 60 }),
        (key, cut) => {
          const text = JSON.stringify({ version: 1, apiKeys: { p: key, "bad name": key } });
          for (const broken of [text, text.slice(0, cut)]) {
            try {
              parseSecretsFile(broken, path);
            } catch (error) {
              expect((error as Error).message).not.toContain(key);
            }
          }
        },
      ),
    );
  });

  it("reads back every valid file it writes", () => {
    fc.assert(
      fc.property(fc.dictionary(profileName, apiKey), (apiKeys) => {
        const text = JSON.stringify({ version: 1, apiKeys });
        expect({ ...parseSecretsFile(text, path).apiKeys }).toEqual(apiKeys);
      }),
    );
  });

  it("keeps a profile named __proto__ as a plain key", () => {
    const parsed = parseSecretsFile('{"version":1,"apiKeys":{"__proto__":"sk-x"}}', path);
    expect(Object.keys(parsed.apiKeys)).toEqual(["__proto__"]);
  });
});

describe("apiKeyProblem", () => {
  it("accepts printable ASCII keys and refuses empty, long or spaced ones", () => {
    expect(apiKeyProblem("sk-abc_123")).toBeNull();
    expect(apiKeyProblem("")).toMatch(/empty/);
    expect(apiKeyProblem("x".repeat(9000))).toMatch(/longer than/);
    expect(apiKeyProblem("sk\tx")).toMatch(/spaces, control/);
    expect(apiKeyProblem("sk-é")).toMatch(/non-ASCII/);
  });
});

describe("readSecretsFile and writeSecretsFile", () => {
  it("reads an absent file as no keys and writes with mode 0600", async () => {
    const home = newHome();
    expect(readSecretsFile(home).apiKeys).toEqual({});
    await writeSecretsFile(home, { apiKeys: { b: "sk-b", a: "sk-a" } });
    expect({ ...readSecretsFile(home).apiKeys }).toEqual({ a: "sk-a", b: "sk-b" });
    expect(statSync(`${home}/secrets.json`).mode & 0o777).toBe(0o600);
  });
});
