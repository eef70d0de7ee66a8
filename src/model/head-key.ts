/**
 * Head-signing keys as every layer names them: a key's id (what a signed head, a verify report
 * and config.json's `trustedHeadKeys` show) and an Ed25519 public key read from SPKI PEM text.
 *
 * Boundary rule: node:crypto only; signing and checking heads is the log's (log/head-signer.ts).
 */
import { createHash, createPublicKey, type KeyObject } from "node:crypto";

/** A key's id: the first 16 hex digits of SHA-256 over its DER-encoded public key. */
export function headKeyIdOf(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
}

/** An Ed25519 public key from SPKI PEM text; throws an Error saying why the text is not one. */
export function parseHeadPublicKey(pem: string): KeyObject {
  if (!pem.includes("-----BEGIN PUBLIC KEY-----")) {
    throw new Error("expected an SPKI public key in PEM form (-----BEGIN PUBLIC KEY-----)");
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new Error(`not a readable public key (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new Error(`a head-signing key must be Ed25519, not ${String(key.asymmetricKeyType)}`);
  }
  return key;
}
