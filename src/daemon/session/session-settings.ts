/**
 * A session's settings: which provider profile and model it runs with and its own model
 * parameters, how a `PATCH /sessions/{id}` changes them (a merge patch: null removes), and how
 * a snapshot shows them, with the values the next request will use.
 *
 * Boundary rule: pure functions; resolving a profile is the daemon's (`describeProvider`).
 */
import type { RequestConfigBody, SessionSettings, SessionSettingsBody } from "../../api/session-settings.js";
import type { RequestConfig } from "../../model/request-config.js";

/** What a session is set to run with. */
export interface SettingsState {
  providerProfile: string | null;
  model: string | null;
  config: RequestConfig;
}

/** The provider a session's settings resolve to, as the daemon's config says now. */
export type ProviderDescription = NonNullable<SessionSettings["effective"]>;

/** The settings after `patch`: absent fields are kept, null ones go back to their default. */
export function patchSettings(current: SettingsState, patch: SessionSettingsBody): SettingsState {
  const next: SettingsState = { ...current, config: structuredClone(current.config) };
  if (patch.provider_profile !== undefined) {
    next.providerProfile = patch.provider_profile;
    // Another profile's default model, unless the patch names one.
    if (patch.model === undefined && patch.provider_profile !== current.providerProfile) next.model = null;
  }
  if (patch.model !== undefined) next.model = patch.model;
  if (patch.request_config === null) next.config = {};
  else if (patch.request_config !== undefined) {
    for (const [key, value] of Object.entries(patch.request_config) as [keyof RequestConfigBody, unknown][]) {
      if (value === null) delete next.config[key];
      else if (value !== undefined) Object.assign(next.config, { [key]: structuredClone(value) });
    }
  }
  return next;
}

/** The settings as a snapshot shows them; `effective` is null when no provider is configured. */
export function settingsOf(state: SettingsState, effective: ProviderDescription | null): SessionSettings {
  const { stop_sequences: _, ...own } = state.config;
  return {
    provider_profile: state.providerProfile,
    model: state.model,
    request_config: own,
    effective,
  };
}
