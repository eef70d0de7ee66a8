/**
 * The web UI's built files (`dist/web`: index.html and hashed assets), read into memory once
 * at start and served from there.
 *
 * Boundary rule: a fixed set of files found at start; a request can only name one of them, so
 * no path from a request ever reaches the file system. Assets have content hashes in their
 * names and are cached for good; the page itself never is.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";

/** One file, ready to send. */
export interface StaticFile {
  body: Buffer;
  contentType: string;
  etag: string;
}

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

/** The built page and its assets. */
export class StaticAssets {
  private constructor(
    readonly index: StaticFile,
    private readonly assets: ReadonlyMap<string, StaticFile>,
  ) {}

  /** The files under `root` (index.html and assets/), or null when the UI was not built there. */
  static load(root: string): StaticAssets | null {
    let index: StaticFile;
    try {
      index = fileOf(join(root, "index.html"));
    } catch {
      return null;
    }
    const assets = new Map<string, StaticFile>();
    let names: string[] = [];
    try {
      names = readdirSync(join(root, "assets"));
    } catch {
      // a page without assets
    }
    for (const name of names) {
      if (contentTypes[extname(name)] === undefined) continue;
      assets.set(name, fileOf(join(root, "assets", name)));
    }
    return new StaticAssets(index, assets);
  }

  /** The asset named `name` (a file name under assets/), or undefined. */
  asset(name: string): StaticFile | undefined {
    return this.assets.get(name);
  }
}

function fileOf(path: string): StaticFile {
  const body = readFileSync(path);
  return {
    body,
    contentType: contentTypes[extname(path)] ?? "application/octet-stream",
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
  };
}
