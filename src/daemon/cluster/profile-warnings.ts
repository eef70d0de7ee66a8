/**
 * Which live nodes run with other provider profiles than this one: a session's turns run with
 * the profiles of whichever node owns it, so differing profiles make a session behave
 * differently after a takeover. Said once per node and pair of digests.
 *
 * Boundary rule: advisory only; reads the nodes as GET /cluster shows them.
 */
import type { ClusterNodeInfo } from "../../api/cluster.js";
import type { SessionLogger } from "../session/session-services.js";

export class ProfileWarnings {
  readonly #warned = new Set<string>();

  constructor(
    readonly logger: SessionLogger,
    /** This node's digest now (null: unknown). */
    readonly ownDigest: () => string | null,
  ) {}

  /** Warn of each live node in `nodes` whose profiles differ from this node's, once. */
  check(nodes: readonly ClusterNodeInfo[]): void {
    const own = this.ownDigest();
    if (own === null) return;
    for (const node of nodes) {
      if (!node.live || node.self || node.profiles_digest === null || node.profiles_digest === own) continue;
      const key = `${node.id}:${node.profiles_digest}:${own}`;
      if (this.#warned.has(key)) continue;
      this.#warned.add(key);
      this.logger.warn(
        { node: node.id, url: node.url, theirs: node.profiles_digest, ours: own },
        "a live node of this cluster has other provider profiles than this one (config.json): a session's turns " +
          "run with the profiles of whichever node owns it; give every node the same profiles",
      );
    }
  }
}
