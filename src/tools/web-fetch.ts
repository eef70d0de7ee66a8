/**
 * `web_fetch`: GETs an http(s) URL and returns its text, HTML converted to Markdown.
 *
 * Boundary rule: the daemon fetches only when the operator gave tools a network
 * (`SKEIN_SANDBOX_NETWORK=1`); otherwise every call is refused saying so. Each hop's name is
 * resolved first and every address it resolves to is judged by `addressProblem` (no loopback,
 * private, link-local or host address unless config.json's `webFetch.allowAddresses` lists it);
 * the connection goes to an address so judged (never to a second lookup's answer), and
 * redirects are followed by hand, each hop judged again. The body is bounded in bytes (after
 * decompression) and the whole call in time.
 */
import { lookup } from "node:dns/promises";
import type { IncomingMessage } from "node:http";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { type ToolDefinition, ToolError } from "../model/tools.js";
import { argumentsSchema, textArgument } from "./argument-schema.js";
import { type AddressAllowList, addressProblem } from "./fetch-address.js";
import { htmlToMarkdown } from "./html-markdown.js";
import { truncateText } from "./output-limit.js";
import { errorMessage } from "./system-error.js";
import { toolKind } from "./tool-kind.js";

/** Most bytes of a body read (after decompression); the rest is cut with a note. */
export const MAX_FETCH_BYTES = 2 * 1024 * 1024;
/** How long one call may take, redirects included. */
const FETCH_TIMEOUT_MS = 30_000;
/** Most redirects followed. */
const MAX_REDIRECTS = 5;

/** Whether the daemon's tools have a network, and why not. */
export type FetchNetwork = { kind: "available" } | { kind: "none"; reason: string };

/** What `web_fetch` may reach: the network, and the operator's allowed ranges (read at each call). */
export interface WebFetchAccess {
  network: FetchNetwork;
  allowList: () => AddressAllowList;
}

/** Arguments of `web_fetch`. */
interface WebFetchInput {
  url: string;
}

const inputSchema = argumentsSchema(
  { url: textArgument("The http or https URL to GET.", { maxLength: 4096 }) },
  ["url"],
);

const description =
  "Fetch a web page or other text over http(s) (GET) and return it: HTML converted to Markdown, " +
  `other text as is, at most ${MAX_FETCH_BYTES / 1024 / 1024} MiB read and 64 KiB returned, within ` +
  `${FETCH_TIMEOUT_MS / 1000} s. Addresses of this machine and of private networks are not reachable.`;

const webFetchKind = toolKind<WebFetchInput>("web_fetch", inputSchema);

/** The `web_fetch` tool, reaching what `access` allows. */
export function webFetchTool(access: WebFetchAccess): ToolDefinition {
  return webFetchKind(description, (input, context) => webFetch(access, input, context.signal));
}

/** A response read within bounds. */
interface Fetched {
  url: URL;
  status: number;
  contentType: string;
  body: Buffer;
  cut: boolean;
}

async function webFetch(access: WebFetchAccess, input: WebFetchInput, signal: AbortSignal): Promise<string> {
  if (access.network.kind === "none") {
    throw new ToolError(
      "execution_failed",
      `web_fetch: this daemon gives its tools no network (${access.network.reason})`,
    );
  }
  let url = parseUrl(input.url);
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]);
  for (let hop = 0; ; hop++) {
    const response = await getOnce(url, access.allowList(), bounded);
    const location = response.headers.location;
    if (
      response.statusCode !== undefined &&
      response.statusCode >= 300 &&
      response.statusCode < 400 &&
      location
    ) {
      response.destroy();
      if (hop >= MAX_REDIRECTS)
        throw new ToolError("execution_failed", `web_fetch: more than ${MAX_REDIRECTS} redirects`);
      url = parseUrl(new URL(location, url).href);
      continue;
    }
    return await render(await readBounded(url, response, bounded));
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError("invalid_argument", `web_fetch: ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(
      "invalid_argument",
      `web_fetch: only http and https URLs can be fetched, not ${url.protocol}`,
    );
  }
  return url;
}

/** The addresses of `url`'s host, each judged; throws when any is refused. */
async function judgedAddresses(
  url: URL,
  allowList: AddressAllowList,
): Promise<Array<{ address: string; family: number }>> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (error) {
      throw new ToolError("execution_failed", `web_fetch: cannot resolve ${host}: ${errorMessage(error)}`);
    }
  }
  const own = hostAddresses();
  for (const { address } of addresses) {
    const problem = addressProblem(address, own, allowList);
    if (problem !== null) {
      throw new ToolError(
        "execution_failed",
        `web_fetch: refused: ${host} is ${address}, ${problem}; web_fetch reaches only public addresses ` +
          "(an operator can allow a range with config.json's webFetch.allowAddresses)",
      );
    }
  }
  return addresses;
}

function hostAddresses(): Set<string> {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces()))
    for (const entry of entries ?? []) own.add(entry.address);
  return own;
}

async function getOnce(url: URL, allowList: AddressAllowList, signal: AbortSignal): Promise<IncomingMessage> {
  const addresses = await judgedAddresses(url, allowList);
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all === true) callback(null, addresses);
    else callback(null, addresses[0]?.address ?? "", addresses[0]?.family ?? 4);
  };
  const request = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(url, {
      method: "GET",
      lookup: pinned,
      signal,
      headers: {
        "user-agent": "skein-web-fetch",
        accept: "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5",
        "accept-encoding": "gzip, deflate, br",
      },
    });
    outgoing.on("response", resolve);
    outgoing.on("error", (error) => reject(fetchFailure(url, error, signal)));
    outgoing.end();
  });
}

function fetchFailure(url: URL, error: unknown, signal: AbortSignal): ToolError {
  if (signal.aborted) {
    return new ToolError(
      "execution_failed",
      `web_fetch: ${url.href} took longer than ${FETCH_TIMEOUT_MS / 1000} s (or the call was cancelled)`,
    );
  }
  return new ToolError("execution_failed", `web_fetch: cannot fetch ${url.href}: ${errorMessage(error)}`);
}

async function readBounded(url: URL, response: IncomingMessage, signal: AbortSignal): Promise<Fetched> {
  const encoding = String(response.headers["content-encoding"] ?? "").toLowerCase();
  const decoder =
    encoding === "gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : null;
  const source = decoder === null ? response : response.pipe(decoder);
  const chunks: Buffer[] = [];
  let bytes = 0;
  let cut = false;
  try {
    for await (const chunk of source as AsyncIterable<Buffer>) {
      const room = MAX_FETCH_BYTES - bytes;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      bytes += Math.min(chunk.length, room);
      if (chunk.length >= room) {
        cut = true;
        break;
      }
    }
  } catch (error) {
    throw fetchFailure(url, error, signal);
  } finally {
    response.destroy();
  }
  return {
    url,
    status: response.statusCode ?? 0,
    contentType: String(response.headers["content-type"] ?? ""),
    body: Buffer.concat(chunks),
    cut,
  };
}

async function render(fetched: Fetched): Promise<string> {
  const mediaType = fetched.contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  const head = `${fetched.url.href} (${fetched.status}, ${mediaType || "no content type"})`;
  const textual =
    mediaType === "" || mediaType.startsWith("text/") || /json|xml|javascript|yaml/.test(mediaType);
  if (!textual) return `${head}\n\n[${fetched.body.length} bytes of ${mediaType}, not text: not shown]`;
  const text = decodeText(fetched.body, fetched.contentType);
  const shown =
    mediaType === "text/html" || mediaType === "application/xhtml+xml" ? await htmlToMarkdown(text) : text;
  const note = fetched.cut ? `\n[the body was cut after ${MAX_FETCH_BYTES} bytes]` : "";
  return truncateText(`${head}\n\n${shown}`) + note;
}

function decodeText(body: Buffer, contentType: string): string {
  const charset = /charset="?([^";\s]+)/i.exec(contentType)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
