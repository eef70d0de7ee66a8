/** The typed error a promise is expected to reject with, or a call to throw. */

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

/**
 * The error `call` throws when `isExpected` accepts it; rethrows any other error and fails,
 * saying `returned`, when the call returns instead.
 */
export function thrownBy<E extends Error>(
  call: () => unknown,
  isExpected: (error: unknown) => error is E,
  returned: string,
): E {
  try {
    call();
  } catch (error) {
    if (isExpected(error)) return error;
    throw error;
  }
  throw new Error(returned);
}
