/** A JSON value as it appears on the wire and in the log. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object (for schemas, tool arguments, provider payloads). */
export type JsonObject = { [key: string]: JsonValue };
