/**
 * The version of the daemon's HTTP protocol and the features it announces.
 *
 * Boundary rule: constants of the contract only. The daemon writes `protocolVersion` to
 * daemon.json with the capabilities and answers both in `GET /server`; a client refuses a
 * daemon.json of another version, and uses a feature added within a version only when the
 * daemon announces it (a daemon started before an upgrade may still be running).
 */

/** The protocol version written to daemon.json and returned by `GET /server`. */
export const protocolVersion = 3;

/** The capabilities the daemon announces: versions of the protocol features a client may rely on. */
export const capabilities = {
  durable_inputs: 1,
  session_replay: 2,
  history_paging: 1,
  fork: 1,
  session_list: 1,
  provider_test: 1,
  approvals: 1,
  schedules: 1,
  budgets: 1,
  /** `PUT /sessions/{id}` takes the session's first input (`input`). */
  creation_input: 1,
} as const;

/** A feature a daemon may announce. */
export type Capability = keyof typeof capabilities;
