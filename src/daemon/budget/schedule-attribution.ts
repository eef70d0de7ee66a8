/**
 * Which schedule a turn runs for: the scheduler admits each firing's input under the client id
 * `schedule:<schedule id>`, and a turn whose inputs include one counts its requests toward that
 * schedule's budget (the first such input's schedule, when a turn takes several).
 *
 * Boundary rule: the one place the client id's shape is written and read.
 */

/** The prefix of every client id a firing is admitted under (clients may not use it: routes/reserved-client-id.ts). */
export const scheduleClientIdPrefix = "schedule:";
const prefix = scheduleClientIdPrefix;

/** The client id a firing of schedule `scheduleId` is admitted under. */
export function scheduleClientId(scheduleId: string): string {
  return `${prefix}${scheduleId}`;
}

/** The schedule the first of `inputs` admitted by a schedule came from, or null. */
export function scheduleOfInputs(inputs: ReadonlyArray<{ clientId: string | null }>): string | null {
  for (const { clientId } of inputs) {
    if (clientId?.startsWith(prefix) === true && clientId.length > prefix.length)
      return clientId.slice(prefix.length);
  }
  return null;
}
