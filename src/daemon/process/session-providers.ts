/**
 * How a session's settings meet config.json: the profile it names (or the active one), the
 * model (its own, or the profile's), and its model parameters over the profile's defaults,
 * turned into a client for a turn or into the description a snapshot shows.
 *
 * Boundary rule: resolution only; a profile that is not configured is a `ProfileUnknownError`
 * when the session named it, and "no provider" (null, or the error that says how to add one)
 * when it relies on the active one.
 */

import { cachedEntry } from "../../model/cached-entry.js";
import type { LlmClient } from "../../model/llm-client.js";
import type { RequestConfig } from "../../model/request-config.js";
import { createLlmClient } from "../../providers/create-llm-client.js";
import { effectiveRequestConfig } from "../../providers/effective-request-config.js";
import { type ModelLimits, modelLimits } from "../../providers/model-limits.js";
import { type ProviderProfile, validateProviderProfile } from "../../providers/provider-profile.js";
import { ProfileUnknownError } from "../errors.js";
import type { SessionServices } from "../session/session-services.js";
import type { ProviderDescription } from "../session/session-settings.js";
import type { ApiKeys } from "./api-key-lookup.js";
import { NoProviderError, type ProviderConfigSource } from "./provider-config.js";

/** A profile's client, made for one loaded config. */
interface MadeClient {
  name: string;
  profile: ProviderProfile;
  client: LlmClient;
  limits: ModelLimits;
}

/** The session services that read provider profiles from `source` and their keys from `keys`. */
export function sessionProviders(
  source: ProviderConfigSource,
  keys: ApiKeys,
): Pick<SessionServices, "bindClient" | "describeProvider" | "limitsOf"> {
  const resolve = (profileName: string | null, model: string | null) => {
    const named = source.resolveProfile(profileName);
    const profile: ProviderProfile = validateProviderProfile(
      { ...named.profile, ...(model === null ? {} : { model }) },
      `provider profile "${named.name}"`,
    );
    return { name: named.name, profile };
  };
  // One client per profile and model, made once per loaded config and secrets file (an edited
  // file loads as a new object, whose clients are made afresh): a turn need not resolve,
  // validate and bind its profile again. A client keeps no state between requests, so turns may
  // share it.
  const made = new WeakMap<object, WeakMap<object, Map<string, MadeClient>>>();
  const clientFor = (profileName: string | null, model: string | null): MadeClient => {
    const loaded = source.current();
    const generation = keys.generation();
    const byKeys = cachedEntry(made, loaded, () => new WeakMap<object, Map<string, MadeClient>>());
    const clients = cachedEntry(byKeys, generation, () => new Map<string, MadeClient>());
    return cachedEntry(clients, `${profileName ?? ""}\u0000${model ?? ""}`, () => {
      const { name, profile } = resolve(profileName, model);
      const llm = createLlmClient(keys.withKey(name, profile));
      return { name, profile, client: llm, limits: modelLimits(profile) };
    });
  };
  return {
    bindClient: (profileName, model, config) => {
      const { name, profile, client, limits } = clientFor(profileName, model);
      return {
        client,
        profileName: name,
        model: profile.model,
        requestConfig: effectiveRequestConfig(profile, config),
        limits,
      };
    },
    limitsOf: (profileName, model) => {
      try {
        return modelLimits(resolve(profileName, model).profile);
      } catch {
        // No provider, or a profile removed from the config: nothing to measure against.
        return null;
      }
    },
    describeProvider: (profileName, model, config: RequestConfig): ProviderDescription | null => {
      try {
        const { name, profile } = resolve(profileName, model);
        const { stop_sequences: _, ...effective } = effectiveRequestConfig(profile, config);
        return {
          provider_profile: name,
          protocol: profile.protocol,
          model: profile.model,
          request_config: effective,
        };
      } catch (error) {
        if (!(error instanceof NoProviderError)) throw error;
        if (profileName === null) return null;
        throw new ProfileUnknownError(profileName);
      }
    },
  };
}
