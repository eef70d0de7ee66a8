/**
 * The version of the daemon's HTTP protocol and the features it announces.
 *
 * Boundary rule: constants of the contract only. The daemon writes `protocolVersion` to
 * daemon.json and answers both in `GET /server`; a client refuses a daemon.json of another
 * version.
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
} as const;
