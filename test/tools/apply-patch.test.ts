import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { applyPatchTool } from "../../src/tools/apply-patch.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { callTool, expectToolError, withTempDirectory } from "./tool-harness.js";

const workspace = withTempDirectory();
const read = (relative: string) => readFile(path.join(workspace.root, relative), "utf8");
const patch = (edits: unknown) =>
  callTool(applyPatchTool(workspace.root, resolveHiddenPaths([path.join(workspace.root, ".skein")])), {
    edits,
  });

beforeEach(async () => {
  await mkdir(path.join(workspace.root, "src"));
  await writeFile(path.join(workspace.root, "src/a.ts"), "export const a = 1;\nexport const b = 2;\n");
  await writeFile(path.join(workspace.root, "src/b.ts"), "import { a } from './a';\n");
});

describe("apply_patch", () => {
  it("applies edits across files in order, a later edit seeing an earlier one, and creates new files", async () => {
    const result = await patch([
      { path: "src/a.ts", old_text: "a = 1", new_text: "a = 10" },
      { path: "src/a.ts", old_text: "a = 10;\nexport const b", new_text: "a = 10;\nexport const bee" },
      { path: "src/b.ts", old_text: "{ a }", new_text: "{ a, bee }" },
      { path: "src/new/c.ts", new_text: "export {};\n" },
    ]);
    expect(result).toBe(
      "applied 4 edit(s) to 3 file(s): edited src/a.ts, edited src/b.ts, created src/new/c.ts",
    );
    expect(await read("src/a.ts")).toBe("export const a = 10;\nexport const bee = 2;\n");
    expect(await read("src/b.ts")).toBe("import { a, bee } from './a';\n");
    expect(await read("src/new/c.ts")).toBe("export {};\n");
  });

  it("changes nothing when one edit does not apply, and says which", async () => {
    const cases: Array<[unknown[], RegExp]> = [
      [
        [
          { path: "src/a.ts", old_text: "a = 1", new_text: "x" },
          { path: "src/b.ts", old_text: "absent", new_text: "y" },
        ],
        /edit 2 \(src\/b\.ts\): old_text was not found/,
      ],
      [
        [{ path: "src/b.ts", old_text: "a", new_text: "y" }],
        /edit 1 \(src\/b\.ts\): old_text matches 2 places/,
      ],
      [
        [
          { path: "src/a.ts", old_text: "a = 1", new_text: "x" },
          { path: "src/a.ts", new_text: "new" },
        ],
        /edit 2 .*already exists/,
      ],
      [
        [
          { path: "src/a.ts", old_text: "a = 1", new_text: "x" },
          { path: "src/missing.ts", old_text: "x", new_text: "y" },
        ],
        /edit 2 .*does not exist/,
      ],
    ];
    for (const [edits, message] of cases) {
      await expectToolError(patch(edits), "execution_failed", message);
      expect(await read("src/a.ts")).toBe("export const a = 1;\nexport const b = 2;\n");
      expect(await read("src/b.ts")).toBe("import { a } from './a';\n");
    }
  });

  it("refuses a path outside the workspace or hidden, before writing anything", async () => {
    await expectToolError(
      patch([
        { path: "src/a.ts", old_text: "a = 1", new_text: "x" },
        { path: "../escape.ts", new_text: "x" },
      ]),
      "invalid_argument",
      /outside/,
    );
    await expectToolError(patch([{ path: ".skein/token", new_text: "x" }]), "invalid_argument", /hidden/);
    expect(await read("src/a.ts")).toBe("export const a = 1;\nexport const b = 2;\n");
  });

  it("puts back the files already written when a later write fails", async () => {
    // A new file below a regular file passes the checks (it does not exist) but cannot be written.
    await expectToolError(
      patch([
        { path: "src/a.ts", old_text: "a = 1", new_text: "x" },
        { path: "src/b.ts/new.ts", new_text: "never" },
      ]),
      "execution_failed",
      /put back/,
    );
    expect(await read("src/a.ts")).toBe("export const a = 1;\nexport const b = 2;\n");
  });
});
