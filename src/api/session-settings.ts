/**
 * A session's provider, model and model parameters: how a client sets them (at creation and
 * with `PATCH /sessions/{id}`) and how a snapshot shows them.
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */
import type { RequestConfig } from "../model/request-config.js";

/**
 * A session's own model parameters, in the log's shape: `max_tokens` (output limit),
 * `temperature`, `top_p`, `top_k`, and `reasoning` as `{"effort": "minimal"|"low"|"medium"|
 * "high"|"xhigh"}` or `{"budget_tokens": N}`. Each field set here wins over the profile's default;
 * which ones reach the provider is the capability table's decision (docs/providers.md).
 */
export type RequestConfigBody = Omit<RequestConfig, "stop_sequences">;

/**
 * `PATCH /sessions/{id}`: change the provider profile, the model or the model parameters of a
 * session from its next model request on. `null` goes back to the default (the active profile,
 * the profile's model, no own parameter); `request_config` is a merge patch (a field set to null
 * is removed, an absent one kept).
 */
export interface SessionSettingsBody {
  provider_profile?: string | null;
  model?: string | null;
  request_config?: { [K in keyof RequestConfigBody]?: RequestConfigBody[K] | null } | null;
}

/** What a session runs with: its own settings and the values its next request will use. */
export interface SessionSettings {
  provider_profile: string | null;
  model: string | null;
  request_config: RequestConfigBody;
  /** Null when no provider is configured (every turn fails saying how to add one). */
  effective: null | {
    provider_profile: string;
    protocol: string;
    model: string;
    /** The session's parameters over the profile's defaults (before the capability table filters them). */
    request_config: RequestConfigBody;
  };
}
