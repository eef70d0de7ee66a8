/**
 * `skein/client`: a typed client of the Skein daemon's HTTP API, usable by any program:
 *
 *   const client = DaemonClient.forHome();            // $SKEIN_HOME or ~/.skein
 *   const session = await client.createSession(uuidV7(), {
 *     workspace: process.cwd(),
 *     input: { id: uuidV7(), kind: "message", text: "hi" }, // optional: its first input
 *   });
 *   for await (const item of client.follow(session.id, { after: session.cursor })) { ... }
 *   await client.putInput(session.id, uuidV7(), { kind: "message", text: "and then?" });
 *   client.close();
 *
 * Boundary rule: the package's public client surface. Everything here speaks HTTP to the daemon
 * and reads the home's daemon.json; the wire types are the contract's (src/api), the same the
 * daemon builds its answers with. Nothing here imports the daemon or the CLI.
 */
export type * from "../api/approvals.js";
export type { BrowserSession, LoginLink } from "../api/browser-login.js";
export type * from "../api/budget.js";
export * from "../api/history.js";
export type * from "../api/inputs.js";
export {
  type ProblemBody,
  type ProblemCode,
  problemStatuses,
  type RejectedCreationBody,
} from "../api/problem.js";
export { capabilities, protocolVersion } from "../api/protocol.js";
export type * from "../api/provider-test.js";
export type * from "../api/schedules.js";
export type * from "../api/server.js";
export type { CreatedSession } from "../api/session-creation.js";
export type * from "../api/session-events.js";
export type * from "../api/session-list-events.js";
export type * from "../api/session-snapshot.js";
export type * from "../api/sessions.js";
export type * from "../api/stream-cursor.js";
export type * from "../api/verify-report.js";
export { DiscoveryFileError, type DiscoveryInfo } from "../home/discovery-file.js";
export { defaultHomeName, type HomePaths, homePaths, skeinHome } from "../home/home.js";
export * from "./api-errors.js";
export type { DaemonClientOptions } from "./client-options.js";
export { DaemonClient } from "./daemon-client.js";
export type { DaemonEndpoint } from "./daemon-endpoint.js";
export {
  DaemonStartError,
  type EnsureDaemonOptions,
  ensureDaemon,
  type LiveDaemon,
  probeDaemon,
} from "./ensure-daemon.js";
export type {
  FollowItem,
  FollowListOptions,
  FollowOptions,
  FollowStreamOptions,
  SessionListItem,
  StreamItem,
} from "./session-stream.js";
export type { SessionListBatch, StreamBatch } from "./stream-batch.js";
export { uuidV7 } from "./uuid-v7.js";
