/**
 * What of the host's /tmp a sandboxed server is shown because its config names it: the paths
 * its command, args and cwd name in any argument form, and the project holding each.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { namedPaths, type ProgramNames, programDirectories } from "../../src/mcp/program-directories.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { privateDirectories } from "../../src/tools/sandbox-mounts.js";

/** One path segment: anything but `/` and NUL, and not `.` or `..`. */
const segment = fc
  .string({ minLength: 1, maxLength: 12, unit: "binary" })
  .filter((text) => !text.includes("/") && !text.includes("\0") && text !== "." && text !== "..");
const absolutePath = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => `/${parts.join("/")}`);
/** An option name as a program might take one: no `=`. */
const option = fc.string({ maxLength: 10 }).filter((text) => !text.includes("="));

describe("namedPaths", () => {
  it("names an absolute path written plainly, as a file URL, or as an option's value in either form", () => {
    fc.assert(
      fc.property(absolutePath, option, fc.constantFrom("", "-", "--"), (named, name, dashes) => {
        // Every byte but the letters percent-encoded: the URL names exactly this path.
        const url = `file://${named.split("/").map(encodeURIComponent).join("/")}`;
        for (const word of [named, url, `${dashes}${name}=${named}`, `${dashes}${name}=${url}`]) {
          expect(namedPaths([word]), word).toContain(named);
        }
      }),
    );
  });

  it("names only normalized absolute paths without NUL, whatever the words", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: "binary" }), { maxLength: 6 }), (words) => {
        for (const named of namedPaths(words)) {
          expect(named.startsWith("/")).toBe(true);
          expect(named).toBe(resolve(named));
          expect(named).not.toContain("\0");
        }
      }),
    );
  });

  it("names nothing in a word that is neither an absolute path nor a file URL, before or after its first '='", () => {
    const notAPath = fc
      .string({ unit: "binary" })
      .filter((text) => !text.startsWith("/") && !/^file:/i.test(text) && !text.includes("="));
    fc.assert(
      fc.property(notAPath, notAPath, (word, value) => {
        expect(namedPaths([word])).toEqual([]);
        expect(namedPaths([`${word}=${value}`])).toEqual([]);
      }),
    );
  });

  it("normalizes, keeps each path once, and refuses what Node would not load", () => {
    expect(
      namedPaths([
        "node",
        "--import",
        "file:///srv/app/../lib/loader.mjs?x#y",
        "FILE:///srv/lib/loader.mjs",
        "--loader=file:///srv/tool/",
        "/srv/a//b/",
        "relative/x.js",
        "./x.js",
        "file://elsewhere/srv/x.js",
        "file:///srv/a%2Fb",
        "file:///srv/a%00b",
        "/srv/a\0b",
        "--opt=/srv/c=/srv/d",
      ]),
    ).toEqual(["/srv/lib/loader.mjs", "/srv/tool", "/srv/a/b", "/srv/c=/srv/d"]);
  });
});

describe("programDirectories", () => {
  let root: string;
  let names: Omit<ProgramNames, "words">;
  const shown = (words: string[], writable: string[] = []) =>
    programDirectories({ ...names, words, writable });
  const file = (relative: string, text = "") => {
    const target = join(root, relative);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    return target;
  };

  beforeAll(() => {
    root = mkdtempSync(join("/tmp", "skein-program-directories-"));
    file("project/package.json", "{}");
    file("project/node_modules/tsx/package.json", "{}");
    file("project/node_modules/tsx/dist/loader.mjs");
    file("project/node_modules/tsx/node_modules/inner/index.js");
    file("project/test/support/server.ts");
    file("project/sub/package.json", "{}");
    file("project/sub/dist/index.js");
    file("bare/bin/tool");
    file("venv/pyvenv.cfg");
    file("venv/bin/python");
    file("python-project/pyproject.toml");
    file("python-project/src/server.py");
    file("workspace/package.json", "{}");
    file("workspace/server.js");
    file("secret/notes.txt", "another session's file");
    symlinkSync(join(root, "secret"), join(root, "workspace", "link"));
    symlinkSync(join(root, "loop"), join(root, "loop"));
    file("home/config.json");
    mkdirSync(join(root, "modules-only", "node_modules", "dep"), { recursive: true });
    file("modules-only/bin/run.js");
    names = {
      privates: privateDirectories(),
      hidden: resolveHiddenPaths([join(root, "home")]),
      writable: [],
    };
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("shows the whole project of a loader inside node_modules, named as a file URL in any form", () => {
    const loader = join(root, "project/node_modules/tsx/dist/loader.mjs");
    const project = join(root, "project");
    expect(shown(["--import", pathToFileURL(loader).href])).toEqual([project]);
    expect(shown([`--import=${pathToFileURL(loader).href}`])).toEqual([project]);
    expect(shown([loader])).toEqual([project]);
    expect(shown([join(root, "project/node_modules/tsx/node_modules/inner/index.js")])).toEqual([project]);
  });

  it("shows the nearest project holding a named file or directory, by any of its markers", () => {
    expect(shown([join(root, "project/test/support/server.ts")])).toEqual([join(root, "project")]);
    expect(shown([join(root, "project/sub/dist/index.js")])).toEqual([join(root, "project/sub")]);
    expect(shown([join(root, "venv/bin/python")])).toEqual([join(root, "venv")]);
    expect(shown([join(root, "python-project/src/server.py")])).toEqual([join(root, "python-project")]);
    expect(shown([join(root, "modules-only/bin/run.js")])).toEqual([join(root, "modules-only")]);
  });

  it("shows the named directory, or a file directly in /tmp, when no project holds it", () => {
    expect(shown([join(root, "bare/bin/tool")])).toEqual([join(root, "bare/bin")]);
    expect(shown([join(root, "bare")])).toEqual([join(root, "bare")]);
    const direct = join("/tmp", `skein-direct-${process.pid}.js`);
    writeFileSync(direct, "");
    try {
      expect(shown([direct])).toEqual([direct]);
    } finally {
      rmSync(direct, { force: true });
    }
  });

  it("never shows a private directory itself, anything outside them, a missing, unresolvable or relative path", () => {
    expect(
      shown(["/tmp", "/tmp/", "file:///tmp", "/usr/bin/env", process.execPath, "relative/x.js"]),
    ).toEqual([]);
    expect(shown([join(root, "missing.js"), join(root, "bare/missing/x.js")])).toEqual([]);
    // A path the daemon cannot resolve (here a symlink loop) names nothing rather than failing the start.
    expect(shown([join(root, "loop/x.js")])).toEqual([]);
  });

  it("shows nothing inside a hidden path (the daemon's home), whatever names it", () => {
    const inside = join(root, "home/config.json");
    expect(shown([inside, pathToFileURL(inside).href, `--config=${inside}`, join(root, "home")])).toEqual([]);
  });

  it("looks only above a writable directory: what the server plants there (a symlink, a marker) widens nothing", () => {
    const workspace = join(root, "workspace");
    // The workspace holds a package.json and a symlink to another directory of /tmp: neither counts.
    expect(shown([join(workspace, "server.js"), join(workspace, "link/notes.txt")], [workspace])).toEqual([]);
    expect(shown([join(workspace, "link")], [workspace])).toEqual([]);
    // Without the workspace writable, the symlink is the user's own: its target is shown.
    expect(shown([join(workspace, "link/notes.txt")])).toEqual([join(root, "secret")]);
  });

  it("shows the project holding a writable cwd, read-only, but nothing for a cwd that is a project itself", () => {
    const cwd = join(root, "project/test");
    expect(shown([cwd], [cwd])).toEqual([join(root, "project")]);
    const projectCwd = join(root, "project");
    expect(shown([projectCwd], [projectCwd])).toEqual([]);
  });
});
