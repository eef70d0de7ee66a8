/**
 * The wire shape of `GET /cluster`: the nodes of a cluster sharing one PostgreSQL database.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/cluster.ts).
 */
export type { ClusterInfo, ClusterNodeInfo } from "./schemas/cluster.js";
