/**
 * The file operations of the stores where one failure is an answer, not an error: a file that
 * is not there (ENOENT) when reading, one that is there already (EEXIST) when creating.
 *
 * Boundary rule: one errno code becomes null; every other failure is thrown as it came.
 */

/** What `action` returns, or null when it fails with errno `code`. */
export function nullOnErrno<T>(code: "ENOENT" | "EEXIST", action: () => T): T | null {
  try {
    return action();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === code) return null;
    throw error;
  }
}
