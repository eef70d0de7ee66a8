import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attachMentions } from "../../src/cli/prompt-mentions.js";

describe("@path mentions in a prompt", () => {
  const root = mkdtempSync(join(tmpdir(), "skein-mentions-"));
  const workspace = join(root, "workspace");
  mkdirSync(join(workspace, "src"), { recursive: true });
  writeFileSync(join(workspace, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "secret.txt"), "outside\n");
  symlinkSync(join(root, "secret.txt"), join(workspace, "link.txt"));

  it("attaches a workspace file's text after the prompt, once however often it is named", () => {
    const result = attachMentions("look at @src/a.ts, and again @src/a.ts", workspace);
    expect(result.text).toBe(
      "look at @src/a.ts, and again @src/a.ts\n\n``` src/a.ts\nexport const a = 1;\n```",
    );
    expect(result.notes).toEqual(["attached @src/a.ts (2 lines)"]);
  });

  it("attaches nothing from outside the workspace, also through a symbolic link, and says why", () => {
    const result = attachMentions("@../secret.txt @link.txt @missing.md @src", workspace);
    expect(result.text).toBe("@../secret.txt @link.txt @missing.md @src");
    expect(result.notes).toEqual([
      "@../secret.txt not attached: outside the workspace",
      "@link.txt not attached: outside the workspace",
      "@missing.md not attached: no such file",
      "@src not attached: not a file",
    ]);
  });

  it("leaves an e-mail address alone", () => {
    expect(attachMentions("mail me at someone@example.com", workspace)).toEqual({
      text: "mail me at someone@example.com",
      notes: [],
    });
  });
});
