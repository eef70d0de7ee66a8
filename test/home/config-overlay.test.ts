/**
 * The cluster's shared config: entries checked exactly as config.json is, with no secret
 * allowed in, and laid over a node's own config.json.
 */
import { describe, expect, it } from "vitest";
import { type ConfigEntry, checkSharedConfig, mergeSharedConfig } from "../../src/home/config-overlay.js";
import { type ProviderConfig, ProviderConfigError } from "../../src/home/provider-config.js";

const profile = { protocol: "chat_completions", baseUrl: "http://127.0.0.1:9/v1", model: "m" };

function refusal(entries: ConfigEntry[]): string {
  try {
    checkSharedConfig(entries);
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderConfigError);
    return (error as Error).message;
  }
  throw new Error("the entries were accepted");
}

describe("the shared config", () => {
  it("accepts profiles, MCP servers and the shared settings that config.json would accept", () => {
    const config = checkSharedConfig([
      { section: "providers", name: "team", value: { ...profile, apiKeyEnv: "TEAM_KEY" } },
      { section: "mcpServers", name: "fs", value: { command: "mcp-fs" } },
      { section: "settings", name: "active", value: "team" },
      { section: "settings", name: "approvalPolicy", value: { default: "ask" } },
      { section: "settings", name: "maxToolRounds", value: 12 },
    ]);
    expect(config.active).toBe("team");
    expect(config.providers.team?.apiKeyEnv).toBe("TEAM_KEY");
    expect(Object.keys(config.mcpServers ?? {})).toEqual(["fs"]);
    expect(config.maxToolRounds).toBe(12);
  });

  it("refuses API keys, credential headers, unshared settings and what config.json refuses", () => {
    expect(refusal([{ section: "providers", name: "p", value: { ...profile, apiKey: "sk" } }])).toMatch(
      /never stored in the database.*skein auth set p/,
    );
    expect(
      refusal([{ section: "providers", name: "p", value: { ...profile, headers: { "X-Api-Key": "k" } } }]),
    ).toMatch(/header "X-Api-Key", a credential/);
    expect(refusal([{ section: "settings", name: "trustedHeadKeys", value: [] }])).toMatch(
      /not a shared setting/,
    );
    expect(refusal([{ section: "settings", name: "active", value: "ghost" }])).toMatch(
      /"active" names profile "ghost", which is not in "providers"/,
    );
    expect(refusal([{ section: "providers", name: "bad name!", value: profile }])).toMatch(/profile name/);
    expect(refusal([{ section: "settings", name: "maxToolRounds", value: 0 }])).toMatch(/maxToolRounds/);
  });

  it("lays the entries over config.json: a shared entry replaces the file's of its name, the file's own stay", () => {
    const file: ProviderConfig = {
      active: "mine",
      providers: {
        mine: { protocol: "chat_completions", baseUrl: "http://127.0.0.1:9/v1", model: "mine", apiKey: "k" },
        team: { protocol: "chat_completions", baseUrl: "http://127.0.0.1:9/v1", model: "old" },
      },
      maxToolRounds: 5,
      webFetch: { allowAddresses: ["10.0.0.0/8"] },
    };
    const merged = mergeSharedConfig(file, [
      { section: "providers", name: "team", value: { ...profile, model: "new" } },
      { section: "settings", name: "maxToolRounds", value: 9 },
    ]);
    expect(merged.active).toBe("mine");
    expect(merged.providers.mine?.apiKey).toBe("k");
    expect(merged.providers.team?.model).toBe("new");
    expect(merged.maxToolRounds).toBe(9);
    expect(merged.webFetch).toEqual(file.webFetch);
    const shared = mergeSharedConfig(file, [
      { section: "providers", name: "team", value: profile },
      { section: "settings", name: "active", value: "team" },
    ]);
    expect(shared.active).toBe("team");
  });
});
