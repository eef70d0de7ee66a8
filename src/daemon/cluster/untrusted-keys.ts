/**
 * The warning a node gives (once per key) about cluster nodes that sign session heads with a key
 * it does not trust: the sessions they write read as corrupt here. A key is never trusted for
 * being in the `nodes` table (anyone who can write the database could add one); the operator
 * shares one key between the nodes or lists the others' keys in config.json (`trustedHeadKeys`).
 *
 * Boundary rule: reads the registered keys and logs; trust itself is the signer's.
 */
import type pg from "pg";
import type { HeadSigner } from "../../log/head-signer.js";
import type { SessionLogger } from "../session/session-services.js";
import { runPg } from "../storage/pg-runner.js";
import { nodeKeysProgram } from "./lease-programs.js";
import { keyIdOfText } from "./node-view.js";

export class UntrustedKeyWarnings {
  readonly #warned = new Set<string>();

  constructor(
    private readonly signer: HeadSigner,
    private readonly logger: SessionLogger,
  ) {}

  /** Warn of every registered node whose key this node does not trust, each key once. */
  async check(pool: pg.Pool): Promise<void> {
    for (const node of await runPg(pool, nodeKeysProgram())) {
      const keyId = keyIdOfText(node.public_key);
      if (keyId === null || this.signer.trusts(keyId) || this.#warned.has(keyId)) continue;
      this.#warned.add(keyId);
      this.logger.warn(
        { node: node.id, url: node.url, keyId },
        "a node of this cluster signs session heads with a key this node does not trust: the sessions it " +
          "writes read as corrupt here. Give every node the same head-signing-key.pem, or add its public " +
          "key to config.json's trustedHeadKeys",
      );
    }
  }
}
