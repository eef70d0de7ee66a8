/** The typed error a promise is expected to reject with. */

/**
 * Resolves to the error `promise` rejects with when `isExpected` accepts it; rethrows any other
 * error and fails when the promise resolves instead.
 */
export async function rejectionOf<E extends Error>(
  promise: Promise<unknown>,
  // A guard rather than the class: error classes with private constructors are not `new`-able types.
  isExpected: (error: unknown) => error is E,
): Promise<E> {
  try {
    await promise;
  } catch (error) {
    if (isExpected(error)) return error;
    throw error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
