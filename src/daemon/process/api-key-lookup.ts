/**
 * Where the daemon finds a profile's API key, in this order: the profile's own `apiKey` in
 * config.json, then the key `skein auth set PROFILE` stored in the home's secrets file, then
 * the variable its `apiKeyEnv` names when the daemon's environment has it. A stored key comes
 * before the environment because the environment is whatever the daemon was started from (a
 * stale variable must not hide the key just stored), so `skein auth set` always fixes a missing
 * or refused key. Each place looked at is reported, so `skein config test` and `skein doctor`
 * can say where the daemon looked.
 *
 * Boundary rule: lookup only; the key never appears in what is reported. The provider layer
 * gets a profile whose `apiKey` is the key found, or an LlmClientError of kind "config" when a
 * key is needed and none was found.
 */
import { LlmClientError } from "../../model/llm-client.js";
import { apiKeyRequired, type ProviderProfile } from "../../providers/provider-profile.js";
import type { SecretsSource } from "./secrets-source.js";

/** Where a key came from. */
export type ApiKeySource = "config" | "env" | "secrets_file";

/** What a lookup found, and where it looked. */
interface ApiKeyLookup {
  key: string | undefined;
  /** null: no key found. */
  source: ApiKeySource | null;
  /** Each place looked at, in order, with what was there (never the key). */
  looked: string[];
}

/** The API keys of a daemon: its environment and its home's secrets file. */
export interface ApiKeys {
  /** Where the key of profile `name` is, looked up now. */
  lookUp(name: string, profile: ProviderProfile): ApiKeyLookup;
  /** `profile` with the key found as its `apiKey`; throws an LlmClientError when one is needed and missing. */
  withKey(name: string, profile: ProviderProfile): ProviderProfile;
  /** An object that changes whenever a stored key may have: clients made for one may be reused. */
  generation(): object;
}

/** The API keys found in `env` and in `secrets`. */
export function apiKeys(env: Readonly<Record<string, string | undefined>>, secrets: SecretsSource): ApiKeys {
  const lookUp = (name: string, profile: ProviderProfile): ApiKeyLookup => {
    if (profile.apiKey !== undefined) {
      return {
        key: profile.apiKey,
        source: "config",
        looked: [`"apiKey" of profile "${name}" in config.json`],
      };
    }
    const looked: string[] = [];
    const stored = secrets.current().apiKeys[name];
    if (stored !== undefined) {
      return { key: stored, source: "secrets_file", looked: [`${secrets.path} (key of profile "${name}")`] };
    }
    const broken = secrets.lastError;
    looked.push(
      broken === null
        ? `${secrets.path} (no key for profile "${name}")`
        : `${secrets.path} (${broken.message})`,
    );
    if (profile.apiKeyEnv !== undefined) {
      const value = env[profile.apiKeyEnv];
      if (value !== undefined && value.length > 0) {
        looked.push(`$${profile.apiKeyEnv} in the daemon's environment`);
        return { key: value, source: "env", looked };
      }
      looked.push(`$${profile.apiKeyEnv} in the daemon's environment (not set)`);
    }
    return { key: undefined, source: null, looked };
  };
  return {
    lookUp,
    withKey: (name, profile) => {
      const found = lookUp(name, profile);
      const { apiKeyEnv, apiKey: _, ...rest } = profile;
      if (found.key !== undefined) return { ...rest, apiKey: found.key };
      if (apiKeyEnv === undefined && !apiKeyRequired(profile)) return rest;
      throw new LlmClientError(
        "config",
        "config",
        `no API key for profile "${name}": the daemon looked at ${found.looked.join(", then ")}; ` +
          `store one with \`skein auth set ${name}\``,
      );
    },
    generation: () => secrets.current(),
  };
}
