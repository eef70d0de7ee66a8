/** Reading Node's system errors (errno codes, messages) without `any`. */

/** The `code` of a Node system error ("ENOENT", ...), if the value carries one. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return undefined;
}

/** A short message for any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
