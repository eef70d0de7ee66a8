/** Fresh temporary homes for the process tests, and the daemon.json and config.json tests write into one. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureHome } from "../../../src/daemon/process/home.js";
import type { DiscoveryInfo } from "../../../src/home/discovery-file.js";
import type { ProviderConfig } from "../../../src/home/provider-config.js";

const made: string[] = [];

/** A new empty directory (its `home` child does not exist yet). */
export function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "skein-process-"));
  made.push(root);
  return root;
}

/** Remove every directory made by tempRoot. */
export function removeTempRoots(): void {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** A new home, created and secured as the daemon creates it. */
export function newHome(): string {
  const home = join(tempRoot(), "home");
  ensureHome(home);
  return home;
}

/** A daemon.json's fields as a daemon of this protocol version writes them. */
export const discoveryInfo: DiscoveryInfo = {
  pid: 4242,
  port: 45_678,
  token: "t".repeat(64),
  version: 3,
  instance_id: "inst-1",
};

/** A config.json with one profile, `local`, on an Ollama at its usual port. */
export const localProviderConfig: ProviderConfig = {
  active: "local",
  providers: {
    local: { protocol: "chat_completions", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3" },
  },
};
