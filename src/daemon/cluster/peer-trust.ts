/**
 * At start, ask every other live node whether it trusts this node's head-signing key: its
 * `GET /cluster` says so for each node it lists (`key_trusted`). A node whose key the others do
 * not trust writes sessions that read as corrupt on them, so this is said loudly, at start,
 * where the operator looks, rather than at the first takeover.
 *
 * Boundary rule: advisory only. The answer of another node never changes what this node trusts
 * or does; a node that cannot be asked is logged and skipped.
 */
import type { ClusterInfo } from "../../api/cluster.js";
import type { SessionLogger } from "../session/session-services.js";
import type { ClusterNode } from "./cluster-node.js";
import { forwardedHeader } from "./request-forwarding.js";

/** Warn for each live node that does not trust this node's key (resolves when all were asked). */
export async function warnWherePeersDistrust(
  node: ClusterNode,
  options: { token: string; logger: SessionLogger; timeoutMs?: number },
): Promise<void> {
  const peers = (await node.nodes()).filter((peer) => peer.live && !peer.self);
  await Promise.all(
    peers.map(async (peer) => {
      let answer: ClusterInfo;
      try {
        const response = await fetch(new URL("/cluster", peer.url), {
          headers: { authorization: `Bearer ${options.token}`, [forwardedHeader]: node.nodeId },
          signal: AbortSignal.timeout(options.timeoutMs ?? 3_000),
        });
        if (!response.ok) throw new Error(`it answered ${response.status}`);
        answer = (await response.json()) as ClusterInfo;
      } catch (error) {
        options.logger.info(
          { node: peer.id, url: peer.url, err: error },
          "could not ask a node whether it trusts this node's head-signing key",
        );
        return;
      }
      const us = answer.nodes.find((listed) => listed.id === node.nodeId);
      if (us !== undefined && !us.key_trusted) {
        options.logger.warn(
          { node: peer.id, url: peer.url, keyId: us.key_id },
          "a live node of this cluster does not trust this node's head-signing key: the sessions this node writes " +
            "read as corrupt there. Give every node the same head-signing-key.pem, or add this node's public key " +
            "to that node's config.json trustedHeadKeys",
        );
      }
    }),
  );
}
