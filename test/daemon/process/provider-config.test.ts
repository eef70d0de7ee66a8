import { readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { recheckStamps } from "../../../src/daemon/process/file-stamp.js";
import { NoProviderError, ProviderConfigSource } from "../../../src/daemon/process/provider-config.js";
import { ProviderConfigError, writeProviderConfig } from "../../../src/home/provider-config.js";
import { localProviderConfig as local, newHome, removeTempRoots } from "./temp-home.js";

afterEach(removeTempRoots);

/** The event loop's next iteration: config.json is stat'ed at most once per iteration. */
const nextIteration = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("ProviderConfigSource", () => {
  it("has no providers when config.json is missing, and says how to add one", () => {
    const home = newHome();
    const source = new ProviderConfigSource(home);
    expect(source.current()).toEqual({ providers: {} });
    expect(source.lastError).toBeNull();
    let error: unknown;
    try {
      source.resolveProfile(null);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(NoProviderError);
    const message = (error as Error).message;
    expect(message).toMatch(/^no provider is configured\. Add one with `skein config add/);
    expect(message).toContain(join(home, "config.json"));
    expect(message).toContain('"protocol":"chat_completions"|"responses"|"anthropic"|"gemini"');
  });

  it("resolves the active profile and a named one", async () => {
    const home = newHome();
    await writeProviderConfig(home, {
      active: "local",
      providers: {
        ...local.providers,
        claude: {
          protocol: "anthropic",
          baseUrl: "https://api.anthropic.com",
          apiKeyEnv: "ANTHROPIC_API_KEY",
          model: "claude-x",
          headers: { "anthropic-beta": "x" },
        },
      },
    });
    const source = new ProviderConfigSource(home);
    expect(source.resolveProfile(null)).toEqual({
      name: "local",
      profile: local.providers.local,
      settings: {},
    });
    expect(source.resolveProfile("claude").profile.apiKeyEnv).toBe("ANTHROPIC_API_KEY");
    expect(() => source.resolveProfile("missing")).toThrow(
      /^provider profile "missing" is not configured \(configured: local, claude\)/,
    );
  });

  it("gives a profile's provider part to its client and its sessions' settings to their turns", async () => {
    const home = newHome();
    const configPolicy = { rules: [{ tool: "run_command", pattern: "rm *", action: "deny" as const }] };
    await writeProviderConfig(home, {
      active: "local",
      approvalPolicy: configPolicy,
      maxToolRounds: 30,
      providers: {
        local: { ...local.providers.local!, approvalPolicy: { default: "allow" }, maxToolRounds: 7 },
        other: { protocol: "gemini", model: "g" },
      },
    });
    const source = new ProviderConfigSource(home);
    const named = source.resolveProfile(null);
    expect(named.profile).toEqual(local.providers.local);
    expect(named.settings).toEqual({ approvalPolicy: { default: "allow" }, maxToolRounds: 7 });
    expect(source.turnSettings(null)).toEqual({
      configPolicy,
      profilePolicy: { default: "allow" },
      maxToolRounds: 7,
    });
    expect(source.turnSettings("other")).toEqual({
      configPolicy,
      profilePolicy: undefined,
      maxToolRounds: 30,
    });
    expect(source.turnSettings("gone").maxToolRounds).toBe(30);
    expect(new ProviderConfigSource(newHome()).turnSettings(null)).toEqual({
      configPolicy: undefined,
      profilePolicy: undefined,
      maxToolRounds: null,
    });
  });

  it("caps no turn's tool rounds unless config.json does, and lets a profile's null lift the top level's cap", async () => {
    const home = newHome();
    await writeProviderConfig(home, {
      active: "local",
      maxToolRounds: 30,
      providers: {
        local: { ...local.providers.local!, maxToolRounds: null },
        other: { protocol: "gemini", model: "g" },
      },
    });
    const source = new ProviderConfigSource(home);
    expect(source.turnSettings("local").maxToolRounds).toBeNull();
    expect(source.turnSettings("other").maxToolRounds).toBe(30);
    const uncapped = newHome();
    await writeProviderConfig(uncapped, local);
    expect(new ProviderConfigSource(uncapped).turnSettings(null).maxToolRounds).toBeNull();
  });

  it("re-reads the file after it changes, without a restart", async () => {
    const home = newHome();
    const source = new ProviderConfigSource(home);
    expect(Object.keys(source.current().providers)).toEqual([]);
    await writeProviderConfig(home, local);
    await nextIteration();
    expect(source.resolveProfile(null).name).toBe("local");
    // Same size, written at once: the change must still be noticed.
    await writeProviderConfig(home, {
      ...local,
      providers: { local: { ...local.providers.local!, model: "qwen4" } },
    });
    await nextIteration();
    expect(source.resolveProfile(null).profile.model).toBe("qwen4");
    unlinkSync(join(home, "config.json"));
    await nextIteration();
    expect(source.current()).toEqual({ providers: {} });
  });

  it("keeps the last good config while the file is broken and reports why", async () => {
    const home = newHome();
    const source = new ProviderConfigSource(home);
    await writeProviderConfig(home, local);
    expect(source.resolveProfile(null).name).toBe("local");
    writeFileSync(join(home, "config.json"), '{"active":"local","providers":{');
    // As when an HTTP request arrives: the file is stat'ed anew at once.
    recheckStamps();
    expect(source.resolveProfile(null).name).toBe("local");
    expect(source.lastError).toBeInstanceOf(ProviderConfigError);
    expect(source.lastError?.message).toMatch(/is not valid JSON/);
    writeFileSync(
      join(home, "config.json"),
      JSON.stringify({ providers: { bad: { protocol: "soap", baseUrl: "http://x", model: "m" } } }),
    );
    recheckStamps();
    expect(source.current()).toEqual(local);
    expect(source.lastError?.message).toMatch(/profile "bad": "protocol" must be one of chat_completions/);
    await writeProviderConfig(home, { providers: {} });
    await nextIteration();
    expect(source.lastError).toBeNull();
    expect(source.current()).toEqual({ providers: {} });
  });

  it("writes config.json atomically with mode 0600", async () => {
    const home = newHome();
    await writeProviderConfig(home, local);
    const path = join(home, "config.json");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual(local);
  });

  it("refuses to write an invalid config", async () => {
    const home = newHome();
    await expect(writeProviderConfig(home, { active: "nope", providers: {} })).rejects.toThrow(
      /"active" names profile "nope", which is not in "providers"/,
    );
  });
});

describe("ProviderConfigSource with a cluster's shared config", () => {
  const shared = { protocol: "chat_completions" as const, baseUrl: "http://127.0.0.1:9/v1", model: "shared" };

  it("lays the shared entries over config.json, and keeps them over a config.json edited later", async () => {
    const home = newHome();
    await writeProviderConfig(home, local);
    const source = new ProviderConfigSource(home);
    source.share([
      { section: "providers", name: "team", value: shared },
      { section: "settings", name: "active", value: "team" },
    ]);
    expect(source.resolveProfile(null).name).toBe("team");
    expect(source.resolveProfile("local").profile.model).toBe("qwen3");
    const edited = { ...local, providers: { ...local.providers, more: local.providers.local! } };
    writeFileSync(join(home, "config.json"), JSON.stringify(edited));
    // A later mtime for sure: the source re-reads on a changed stamp.
    const later = new Date(Date.now() + 2_000);
    utimesSync(join(home, "config.json"), later, later);
    await nextIteration();
    expect(Object.keys(source.current().providers).sort()).toEqual(["local", "more", "team"]);
    expect(source.current().active).toBe("team");
  });

  it("refuses shared entries that do not check with this node's file, keeping the config in force", async () => {
    const home = newHome();
    await writeProviderConfig(home, local);
    const source = new ProviderConfigSource(home);
    const before = source.current();
    expect(() =>
      source.share([{ section: "providers", name: "team", value: { ...shared, protocol: "nope" } }]),
    ).toThrow(ProviderConfigError);
    expect(source.current()).toBe(before);
    expect(source.lastError).toBeNull();
  });
});
