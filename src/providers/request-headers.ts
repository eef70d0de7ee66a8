/**
 * Request headers: the adapter's defaults with the profile's extra headers on top, compared
 * case-insensitively so a profile's `Authorization` replaces the default instead of doubling it.
 *
 * Boundary rule: pure function.
 */

/** `defaults` overridden by `extra`, all names lower-cased. */
function mergeHeaders(
  defaults: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(defaults)) merged[name.toLowerCase()] = value;
  if (extra !== undefined)
    for (const [name, value] of Object.entries(extra)) merged[name.toLowerCase()] = value;
  return merged;
}

/**
 * The headers of a streaming JSON request: JSON body, SSE answer, the protocol's own headers
 * (auth, version), then the profile's extra headers on top.
 */
export function streamingRequestHeaders(
  protocolHeaders: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  return mergeHeaders(
    { "content-type": "application/json", accept: "text/event-stream", ...protocolHeaders },
    extra,
  );
}
