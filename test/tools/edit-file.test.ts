import { readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { editFileTool, occurrences } from "../../src/tools/edit-file.js";
import { callTool, expectToolError, makeTempDirectory, withTempDirectory } from "./tool-harness.js";

const workspace = withTempDirectory();
const edit = (input: unknown) => callTool(editFileTool(workspace.root), input);
const file = () => path.join(workspace.root, "app.ts");

beforeEach(async () => {
  await writeFile(file(), "const a = 1;\nconst b = 2;\nconst c = 2;\n");
});

describe("edit_file", () => {
  it("replaces the one occurrence and says where", async () => {
    expect(
      await edit({ path: "app.ts", old_text: "const b = 2;", new_text: "const b = 3;\nconst d = 4;" }),
    ).toBe("edited app.ts: replaced 1 line(s) at line 2 with 2 line(s)");
    expect(await readFile(file(), "utf8")).toBe("const a = 1;\nconst b = 3;\nconst d = 4;\nconst c = 2;\n");
  });

  it("inserts the new text literally, even with $ patterns", async () => {
    await edit({ path: "app.ts", old_text: "1", new_text: "$& $1 $$" });
    expect(await readFile(file(), "utf8")).toBe("const a = $& $1 $$;\nconst b = 2;\nconst c = 2;\n");
  });

  it("fails and changes nothing when old_text matches several places, saying how many", async () => {
    await expectToolError(
      edit({ path: "app.ts", old_text: "= 2;", new_text: "= 5;" }),
      "execution_failed",
      /old_text matches 2 places in app.ts/,
    );
    expect(await readFile(file(), "utf8")).toBe("const a = 1;\nconst b = 2;\nconst c = 2;\n");
  });

  it("fails when old_text is not found", async () => {
    await expectToolError(
      edit({ path: "app.ts", old_text: "const z", new_text: "" }),
      "execution_failed",
      /old_text was not found in app.ts/,
    );
  });

  it("counts overlapping matches as ambiguous", async () => {
    expect(occurrences("aaa", "aa")).toEqual([0, 1]);
    await writeFile(file(), "aaa");
    await expectToolError(
      edit({ path: "app.ts", old_text: "aa", new_text: "b" }),
      "execution_failed",
      /2 places/,
    );
  });

  it("keeps a byte-order mark and refuses files that are not UTF-8 text", async () => {
    await writeFile(file(), "\uFEFFhello");
    await edit({ path: "app.ts", old_text: "hello", new_text: "bye" });
    expect(await readFile(file())).toEqual(Buffer.from("\uFEFFbye", "utf8"));
    await writeFile(file(), Buffer.from([0x61, 0xff, 0x62]));
    await expectToolError(
      edit({ path: "app.ts", old_text: "a", new_text: "b" }),
      "execution_failed",
      /not valid UTF-8/,
    );
    await writeFile(file(), Buffer.from([0x61, 0x00, 0x62]));
    await expectToolError(
      edit({ path: "app.ts", old_text: "a", new_text: "b" }),
      "execution_failed",
      /binary/,
    );
  });

  it("fails for a missing file", async () => {
    await expectToolError(
      edit({ path: "nope.ts", old_text: "a", new_text: "b" }),
      "execution_failed",
      /does not exist/,
    );
  });

  it("cannot edit a file outside the workspace through a symlink", async () => {
    const outside = await makeTempDirectory("skein-outside-");
    try {
      await writeFile(path.join(outside.root, "victim.txt"), "secret");
      await symlink(path.join(outside.root, "victim.txt"), path.join(workspace.root, "victim"));
      await expectToolError(
        edit({ path: "victim", old_text: "secret", new_text: "owned" }),
        "invalid_argument",
        /outside the workspace/,
      );
      expect(await readFile(path.join(outside.root, "victim.txt"), "utf8")).toBe("secret");
    } finally {
      await outside.remove();
    }
  });

  it("rejects invalid arguments as invalid_argument", async () => {
    await expectToolError(
      edit({ path: "app.ts", old_text: "", new_text: "x" }),
      "invalid_argument",
      /"old_text"/,
    );
    await expectToolError(edit({ path: "app.ts", old_text: "a" }), "invalid_argument", /"new_text"/);
    await expectToolError(
      edit({ path: "/etc/hosts", old_text: "a", new_text: "b" }),
      "invalid_argument",
      /outside/,
    );
  });
});
