/**
 * One adapter shape for every wire protocol: a protocol is described as data and small pure
 * functions (where its endpoint is, how it authenticates, how a request becomes its body, which
 * parser reads its stream, what it may adjust after a refusal), and `bindProtocol` turns that
 * description and a profile into the `ProtocolAdapter` the streaming client uses.
 *
 * Boundary rule: wiring only; each protocol's request body and parser live in its folder.
 */
import type { ItemOrigin } from "../model/items.js";
import type { LlmClientError, LlmRequest } from "../model/llm-client.js";
import { capabilitiesFor } from "./capability-table.js";
import { endpointUrl } from "./endpoint-url.js";
import type { ModelCapabilities } from "./model-capabilities.js";
import {
  effectiveBaseUrl,
  type ProviderProfile,
  type ProviderProtocol,
  providerLabels,
} from "./provider-profile.js";
import { streamingRequestHeaders } from "./request-headers.js";
import type { HttpRequestSpec, ProtocolAdapter, StreamParser } from "./stream-parser.js";

/** What a protocol's body builder is given besides the request: settled once per client. */
export interface BindingContext {
  profile: ProviderProfile;
  /** The protocol's label (`LlmClient.provider`). */
  provider: string;
  /** The profile's base URL, or the vendor's. */
  baseUrl: string;
}

/**
 * What every protocol's body builder gets, settled by `bindProtocol`: the profile's model, its
 * row of the capability table and the origin stamped on (and checked against) provider payloads.
 */
export interface BoundModel {
  model: string;
  capabilities: ModelCapabilities;
  origin: ItemOrigin;
}

/**
 * A wire protocol, described. `O` is what its body builder needs, settled once per client: the
 * protocol's own settings (from `options`) and the `BoundModel`.
 */
export interface WireProtocol<O extends BoundModel> {
  protocol: ProviderProtocol;
  /** The API version segment the base URL gets when it has none, and the path below it. */
  endpoint(context: BindingContext): { version: string; path: string };
  /** The headers that carry the API key. */
  authHeaders(apiKey: string): Record<string, string>;
  /** Headers every request carries (e.g. an API version). */
  fixedHeaders?: Record<string, string>;
  /** The body builder's settings for this profile, besides the `BoundModel`. */
  options(context: BindingContext): Omit<O, keyof BoundModel>;
  /** The request as the protocol's JSON body. */
  body(request: LlmRequest, options: O): unknown;
  parser(provider: string): StreamParser;
  /** See `ProtocolAdapter.adjustAfter`; may change `options` in place. */
  adjustAfter?(error: LlmClientError, options: O): boolean;
}

/** The adapter of `protocol` for `profile` (with its API key, when one is configured). */
export function bindProtocol<O extends BoundModel>(
  protocol: WireProtocol<O>,
  profile: ProviderProfile,
  apiKey: string | undefined,
): ProtocolAdapter {
  const context: BindingContext = {
    profile,
    provider: providerLabels[protocol.protocol],
    baseUrl: effectiveBaseUrl(profile),
  };
  const { version, path } = protocol.endpoint(context);
  const url = endpointUrl(context.baseUrl, version, path);
  const bound: BoundModel = {
    model: profile.model,
    capabilities: capabilitiesFor(protocol.protocol, profile.model, profile.capabilities),
    origin: { provider: context.provider, model: profile.model },
  };
  const options = { ...protocol.options(context), ...bound } as O;
  const headers = streamingRequestHeaders(
    { ...protocol.fixedHeaders, ...(apiKey === undefined ? {} : protocol.authHeaders(apiKey)) },
    profile.headers,
  );
  const adapter: ProtocolAdapter = {
    provider: context.provider,
    model: profile.model,
    buildHttpRequest(request: LlmRequest): HttpRequestSpec {
      return { url, headers: { ...headers }, body: JSON.stringify(protocol.body(request, options)) };
    },
    createParser(): StreamParser {
      return protocol.parser(context.provider);
    },
  };
  const adjust = protocol.adjustAfter;
  if (adjust !== undefined) adapter.adjustAfter = (error) => adjust(error, options);
  return adapter;
}

/** `Authorization: Bearer <key>`, the OpenAI-style auth. */
export function bearerAuth(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}
