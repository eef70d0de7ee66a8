/**
 * The request config a session really runs with: the profile's defaults (output limit,
 * sampling, effort or thinking budget) under the session's own settings, field by field. The
 * model is not part of it: the session (or the profile) names it.
 *
 * Boundary rule: a pure function over validated data.
 */
import type { RequestConfig } from "../model/request-config.js";
import type { ProviderProfile } from "./provider-profile.js";

/** The defaults a profile gives every request config. */
export function profileRequestDefaults(profile: ProviderProfile): RequestConfig {
  const defaults: RequestConfig = {};
  if (profile.maxOutputTokens !== undefined) defaults.max_tokens = profile.maxOutputTokens;
  if (profile.temperature !== undefined) defaults.temperature = profile.temperature;
  if (profile.topP !== undefined) defaults.top_p = profile.topP;
  if (profile.topK !== undefined) defaults.top_k = profile.topK;
  if (profile.effort !== undefined) defaults.reasoning = { effort: profile.effort };
  else if (profile.thinkingBudget !== undefined)
    defaults.reasoning = { budget_tokens: profile.thinkingBudget };
  return defaults;
}

/**
 * The effective config: each field the session sets wins over the profile's default (a
 * session's `reasoning`, effort or budget, replaces the profile's whole).
 */
export function effectiveRequestConfig(profile: ProviderProfile, session: RequestConfig): RequestConfig {
  const merged: RequestConfig = profileRequestDefaults(profile);
  for (const key of Object.keys(session) as (keyof RequestConfig)[]) {
    const value = session[key];
    if (value !== undefined) Object.assign(merged, { [key]: structuredClone(value) });
  }
  return merged;
}
