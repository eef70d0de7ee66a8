import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAgentsConfig } from "../../src/home/agent-definition.js";
import { AgentFileError, parseAgentFile, readAgentFiles } from "../../src/home/agent-file.js";

const file = "/w/.skein/agents/reviewer.md";

describe("agent files", () => {
  it("takes the front matter's fields and the body as the prompt", () => {
    const parsed = parseAgentFile(
      file,
      "reviewer",
      "---\ndescription: Reviews a change\ntools: [read_file, grep]\nmode: read-only\nmodel: m2\n---\nYou review.\n\nCarefully.\n",
    );
    expect(parsed).toEqual({
      description: "Reviews a change",
      prompt: "You review.\n\nCarefully.",
      tools: ["read_file", "grep"],
      mode: "read-only",
      model: "m2",
    });
  });

  it("gives a typed error naming the file for what is no agent", () => {
    const cases = [
      "no front matter",
      "---\ndescription: [unclosed\n---\nbody",
      "---\n- a list\n---\nbody",
      "---\ndescription: d\n---\n",
      "---\ndescription: d\nmode: yolo\n---\nbody",
      "---\ndescription: d\nprompt: p\n---\nbody",
      "---\ndescription: d\ncolour: red\n---\nbody",
      // YAML that parses only with a warning (an unknown tag): refused, not guessed.
      "---\ndescription: !weird d\n---\nbody",
    ];
    for (const text of cases) {
      const parsed = parseAgentFile(file, "reviewer", text);
      expect(parsed, text).toBeInstanceOf(AgentFileError);
      expect((parsed as AgentFileError).message).toContain(file);
    }
    expect(parseAgentFile(file, "bad name!", "---\ndescription: d\n---\nb")).toBeInstanceOf(AgentFileError);
  });

  it("never throws on arbitrary text: an agent or an AgentFileError", () => {
    const texts = fc.oneof(
      fc.string({ maxLength: 400 }),
      fc
        .tuple(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }))
        .map(([f, b]) => `---\n${f}\n---\n${b}`),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const parsed = parseAgentFile(file, "a", text);
        if (!(parsed instanceof AgentFileError)) {
          expect(typeof parsed.description).toBe("string");
          expect(parsed.prompt.trim()).not.toBe("");
        }
      }),
      { numRuns: 500 },
    );
  });

  it("reads a workspace's agents and reports the files that define none", () => {
    const workspace = mkdtempSync(join(tmpdir(), "skein-agents-"));
    const directory = join(workspace, ".skein", "agents");
    mkdirSync(directory, { recursive: true });
    writeFileSync(join(directory, "good.md"), "---\ndescription: Good\n---\nDo good.");
    writeFileSync(join(directory, "bad.md"), "nothing");
    writeFileSync(join(directory, "notes.txt"), "ignored");
    const { agents, errors } = readAgentFiles(workspace);
    expect(Object.keys(agents)).toEqual(["good"]);
    expect(errors.map((error) => error.file)).toEqual([join(directory, "bad.md")]);
    expect(readAgentFiles(join(workspace, "missing"))).toEqual({ agents: {}, errors: [] });
  });
});

describe("config.json's agents", () => {
  it("validates each agent and names the one that is wrong", () => {
    const fail = (reason: string): never => {
      throw new Error(reason);
    };
    expect(parseAgentsConfig({ a: { description: "d", prompt: "p", tools: ["grep"] } }, fail)).toEqual({
      a: { description: "d", prompt: "p", tools: ["grep"] },
    });
    expect(() => parseAgentsConfig({ a: { description: "d" } }, fail)).toThrow(
      /agent "a": "prompt" is required/,
    );
    expect(() => parseAgentsConfig({ "a b": { description: "d", prompt: "p" } }, fail)).toThrow(/agent name/);
    expect(() => parseAgentsConfig([], fail)).toThrow(/"agents" must be an object/);
  });
});
