/**
 * The optional request fields servers refused, remembered per profile (protocol, base URL,
 * model and key) for the life of the process: once a server answered that it does not take
 * `stream_options` or `reasoning.summary`, no later request of any session on that profile
 * sends it again.
 *
 * Boundary rule: in-memory state only; nothing is persisted (a restarted daemon learns again,
 * at the cost of one refused request).
 */
import { createHash } from "node:crypto";
import { cachedEntry } from "../model/cached-entry.js";
import { effectiveBaseUrl, type ProviderProfile } from "./provider-profile.js";

/** Refused field keys by profile. */
export class FieldRefusals {
  private readonly byProfile = new Map<string, Set<string>>();

  /** The field keys refused for `profile` so far. */
  refused(profile: ProviderProfile): ReadonlySet<string> {
    return this.byProfile.get(profileKey(profile)) ?? new Set();
  }

  /** Records refused keys; returns those that were new. */
  remember(profile: ProviderProfile, keys: readonly string[]): string[] {
    const set = cachedEntry(this.byProfile, profileKey(profile), () => new Set<string>());
    const fresh = keys.filter((field) => !set.has(field));
    for (const field of fresh) set.add(field);
    return fresh;
  }
}

/** The refusals every client of this process shares unless given its own. */
export const processFieldRefusals = new FieldRefusals();

/**
 * Each profile object's key, computed once: a client asks before every request with the same
 * profile, and the digest was a visible part of building a request. Profiles are not changed
 * in place (a changed config or key makes a new profile object, and so a new key).
 */
const keys = new WeakMap<ProviderProfile, string>();

/** What identifies a profile's server account: protocol, base URL, model and (a digest of) the key. */
function profileKey(profile: ProviderProfile): string {
  return cachedEntry(keys, profile, () => computedProfileKey(profile));
}

function computedProfileKey(profile: ProviderProfile): string {
  const key = profile.apiKey ?? profile.apiKeyEnv ?? "";
  const digest = createHash("sha256").update(key).digest("hex").slice(0, 16);
  return JSON.stringify([profile.protocol, effectiveBaseUrl(profile), profile.model, digest]);
}
