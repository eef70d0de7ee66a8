/**
 * One adapter shape for every wire protocol: a protocol is described as data and small pure
 * functions (where its endpoint is, how it authenticates, how a request becomes its body, which
 * parser reads its stream, what it may adjust after a refusal), and `bindProtocol` turns that
 * description and a profile into the `ProtocolAdapter` the streaming client uses.
 *
 * Boundary rule: wiring only; each protocol's request body and parser live in its folder.
 */
import type { Item, ItemOrigin } from "../model/items.js";
import type { LlmClientError, LlmRequest } from "../model/llm-client.js";
import { capabilitiesFor } from "./capability-table.js";
import { endpointUrl } from "./endpoint-url.js";
import type { FieldRefusals } from "./field-refusals.js";
import {
  type HistoryArray,
  type HistorySources,
  namedElement,
  sourcePositions,
  withoutItems,
} from "./history-refusal.js";
import type { CapabilityOverrides, ModelCapabilities } from "./model-capabilities.js";
import {
  effectiveBaseUrl,
  type ProviderProfile,
  type ProviderProtocol,
  providerLabels,
} from "./provider-profile.js";
import { requestBodyJson } from "./request-body-json.js";
import { streamingRequestHeaders } from "./request-headers.js";
import type { HttpRequestSpec, ProtocolAdapter, RequestAdjustment, StreamParser } from "./stream-parser.js";
import type { WholeResponseConverter } from "./whole-response.js";

/** What a protocol's body builder is given besides the request: settled once per client. */
interface BindingContext {
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
  /** Capabilities the server imposes whatever the model (below the profile's own overrides). */
  serverCapabilities?(context: BindingContext): CapabilityOverrides;
  /** The body builder's settings for this profile, besides the `BoundModel`. */
  options(context: BindingContext): Omit<O, keyof BoundModel>;
  /**
   * The request as the protocol's JSON body; given `sources`, the builder fills it with where
   * each element of its history array came from (history-refusal.ts).
   */
  body(request: LlmRequest, options: O, sources?: HistorySources): unknown;
  parser(provider: string): StreamParser;
  /** A whole JSON response (no event stream) as the messages of the stream it stands for. */
  wholeResponse: WholeResponseConverter;
  /**
   * The optional fields a server may refuse, by field key (refused-fields.ts), each with how it
   * is left out of a built body. A refusal naming one of them is answered by sending the
   * request again at once without it, and the profile never sends it again.
   */
  optionalFields?: Readonly<Record<string, FieldAdjustment>>;
  /** Field keys named only in a refusal's message (no `param` or `loc` in its body). */
  fieldsOfMessage?(message: string): string[];
  /**
   * The body's history array, when the builder traces its elements: a refusal naming one of
   * them is answered by sending the request once more without the items it was built from.
   */
  history?: HistoryArray;
}

/** A request body as built, before it is serialized. */
export type WireBody = Record<string, unknown>;

/** Leaves one refused optional field out of a body (in place). */
export type FieldAdjustment = (body: WireBody) => void;

/** Deletes a top-level field. */
export function dropField(name: string): FieldAdjustment {
  return (body) => {
    delete body[name];
  };
}

/**
 * Deletes a field of every element of a top-level array (`messages[*].reasoning_content`); an
 * element that has it is replaced by a copy without it, since a builder may share a frozen
 * element between requests (request-body-json.ts).
 */
export function dropElementField(array: string, name: string): FieldAdjustment {
  return (body) => {
    const elements = body[array];
    if (!Array.isArray(elements)) return;
    elements.forEach((element: unknown, index) => {
      if (typeof element !== "object" || element === null || !Object.hasOwn(element, name)) return;
      const { [name]: _, ...rest } = element as WireBody;
      elements[index] = rest;
    });
  };
}

/**
 * The adapter of `protocol` for `profile` (with its API key, when one is configured); `refusals`
 * remembers the optional fields the profile's server refused.
 */
export function bindProtocol<O extends BoundModel>(
  protocol: WireProtocol<O>,
  profile: ProviderProfile,
  apiKey: string | undefined,
  refusals: FieldRefusals,
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
    capabilities: capabilitiesFor(protocol.protocol, profile.model, {
      ...protocol.serverCapabilities?.(context),
      ...profile.capabilities,
    }),
    origin: { provider: context.provider, model: profile.model },
  };
  const options = { ...protocol.options(context), ...bound } as O;
  const headers = streamingRequestHeaders(
    { ...protocol.fixedHeaders, ...(apiKey === undefined ? {} : protocol.authHeaders(apiKey)) },
    profile.headers,
  );
  const optionalFields = protocol.optionalFields ?? {};
  const adapter: ProtocolAdapter = {
    provider: context.provider,
    model: profile.model,
    buildHttpRequest(request: LlmRequest): HttpRequestSpec {
      const body = protocol.body(request, options) as WireBody;
      for (const field of refusals.refused(profile)) optionalFields[field]?.(body);
      return { url, headers: { ...headers }, body: requestBodyJson(body) };
    },
    createParser(): StreamParser {
      return protocol.parser(context.provider);
    },
    wholeResponse: protocol.wholeResponse,
    adjustAfter(error: LlmClientError, request: LlmRequest): RequestAdjustment | undefined {
      if (!isFieldRefusal(error)) return undefined;
      const named = error.fields ?? protocol.fieldsOfMessage?.(error.message) ?? [];
      const fields = refusals.remember(
        profile,
        named.filter((field) => Object.hasOwn(optionalFields, field)),
      );
      if (fields.length > 0) return { request, leftOut: fields };
      return withoutNamedItem(protocol, options, error, request);
    },
  };
  return adapter;
}

/** `request` without the history items the refusal's named element was built from, or undefined. */
function withoutNamedItem<O extends BoundModel>(
  protocol: WireProtocol<O>,
  options: O,
  error: LlmClientError,
  request: LlmRequest,
): RequestAdjustment | undefined {
  const history = protocol.history;
  if (history === undefined) return undefined;
  const named = namedElement(error.paths ?? [], history);
  if (named === undefined) return undefined;
  const sources: HistorySources = [];
  protocol.body(request, options, sources);
  const positions = sourcePositions(sources, named);
  // The message the model is asked to answer is not left out: the refusal is the answer to it.
  if (positions.length === 0 || positions.includes(lastUserMessage(request.items))) return undefined;
  const label = `${history.array}[${named.index}]${named.block === undefined ? "" : `.content[${named.block}]`}`;
  const adjusted = withoutItems(request, positions, label);
  return { request: adjusted.request, leftOut: [adjusted.leftOut] };
}

/** The position of the last user message (-1 when there is none). */
function lastUserMessage(items: readonly Item[]): number {
  return items.findLastIndex((item) => item.type === "message" && item.role === "user");
}

/** A 4xx that refuses the request's content (not a rate limit, a timeout or an auth failure). */
function isFieldRefusal(error: LlmClientError): boolean {
  const status = error.status;
  return (
    error.kind === "http" &&
    status !== undefined &&
    (status === 400 ||
      status === 422 ||
      (status > 403 && status < 500 && ![404, 408, 425, 429].includes(status)))
  );
}

/** `Authorization: Bearer <key>`, the OpenAI-style auth. */
export function bearerAuth(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}` };
}
