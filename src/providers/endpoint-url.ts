/**
 * Endpoint URLs from a profile's base URL. Vendors disagree on whether the base includes the
 * API version (OpenAI-style servers document `http://host/v1`, Anthropic and Gemini the bare
 * host), so both spellings work: a base ending in a version segment (`/v1`, `/v1beta`) is used
 * as is, any other base gets the protocol's default version.
 *
 * Boundary rule: pure string functions.
 */

const versionSegment = /^v\d+[a-z0-9]*$/i;

/** `base` + (default version unless the base already ends in one) + `path` (which starts with "/"). */
export function endpointUrl(base: string, defaultVersion: string, path: string): string {
  const trimmed = base.replace(/\/+$/, "");
  const lastSegment = trimmed.slice(trimmed.lastIndexOf("/") + 1);
  return versionSegment.test(lastSegment) ? `${trimmed}${path}` : `${trimmed}/${defaultVersion}${path}`;
}

/** Whether a URL points at this machine (local model servers need no API key). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === "localhost" || host === "[::1]" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
