/** `GET /cluster`: the nodes sharing this daemon's database, their liveness and what they own. */
import type { ClusterInfo } from "../../api/cluster.js";
import { ClusterInfoSchema } from "../../api/schemas/cluster.js";
import type { ClusterNode } from "../cluster/cluster-node.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import { answerWith } from "./daemon-problem.js";

/** Register `GET /cluster` (`node`: null for a daemon on SQLite, which is no cluster). */
export function registerClusterRoutes(app: HttpApp, node: ClusterNode | null): void {
  registerResource(app, "/cluster", {
    GET: {
      schema: { response: { 200: ClusterInfoSchema } },
      config: {
        role: "viewer",
        doc: {
          summary: "The cluster's nodes: liveness and how many sessions each owns",
          description: "A daemon on SQLite answers `clustered: false` and no nodes.",
        },
      },
      handler: async (): Promise<ClusterInfo> =>
        node === null
          ? { clustered: false, node_id: null, lease_seconds: null, nodes: [] }
          : answerWith(async () => ({
              clustered: true,
              node_id: node.nodeId,
              lease_seconds: Math.round(node.leaseMs / 1000),
              nodes: await node.nodes(),
            })),
    },
  });
}
