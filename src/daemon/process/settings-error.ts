/** The error of a daemon setting (an environment variable) that cannot be used. */

/** An environment variable holds a value the daemon cannot use. */
export class SettingsError extends Error {
  constructor(
    readonly variable: string,
    /** The rejected value; null for a secret that must not be echoed. */
    readonly value: string | null,
    reason: string,
  ) {
    super(`${value === null ? variable : `${variable}=${JSON.stringify(value)}`} is invalid: ${reason}`);
    this.name = "SettingsError";
  }
}
