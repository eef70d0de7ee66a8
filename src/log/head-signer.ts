/**
 * Signed heads: an Ed25519 key that signs each session's recorded head (session, position,
 * hash), so a log rewritten and re-hashed behind a store's back (with its recorded head moved
 * along) no longer verifies: the forger cannot make the signature without the private key.
 *
 * Boundary rule: keys and signatures only, no storage. A signer knows its own key pair and any
 * public keys it was told to trust (other writers of a shared database); a signature by a key
 * it does not know is reported as such, never silently accepted as valid.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";

/** A head's signature and the id of the key that made it. */
export interface HeadSignature {
  signature: string;
  key_id: string;
}

/** What checking a head's signature found. */
export type SignatureCheck = "valid" | "invalid" | "unknown_key";

/** The bytes a head signature covers; a version prefix keeps other signed data from ever matching. */
export function headSigningMessage(sessionId: string, position: number, hash: string): Buffer {
  return Buffer.from(`skein-head-v1\n${sessionId}\n${position}\n${hash}`, "utf8");
}

/** A key's id: the first 16 hex digits of SHA-256 over its DER-encoded public key. */
export function keyIdOf(publicKey: KeyObject): string {
  return createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")
    .slice(0, 16);
}

export class HeadSigner {
  readonly keyId: string;
  readonly #privateKey: KeyObject;
  readonly #publicKeys = new Map<string, KeyObject>();
  /** Per session, the head last signed or verified (see `#remember`). */
  readonly #known = new Map<string, string>();

  private constructor(privateKey: KeyObject) {
    if (privateKey.asymmetricKeyType !== "ed25519") {
      throw new Error(`a head signing key must be Ed25519, not ${String(privateKey.asymmetricKeyType)}`);
    }
    this.#privateKey = privateKey;
    const publicKey = createPublicKey(privateKey);
    this.keyId = keyIdOf(publicKey);
    this.#publicKeys.set(this.keyId, publicKey);
  }

  /** A signer with a new random key. */
  static generate(): HeadSigner {
    return new HeadSigner(generateKeyPairSync("ed25519").privateKey);
  }

  /** A signer from a PKCS#8 PEM private key (as `privateKeyPem` wrote it). */
  static fromPrivateKeyPem(pem: string): HeadSigner {
    return new HeadSigner(createPrivateKey(pem));
  }

  /** The private key as PKCS#8 PEM, to keep in a file only its owner can read. */
  privateKeyPem(): string {
    return this.#privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  }

  /** The public key as SPKI PEM: what a user keeps elsewhere to check signed heads. */
  publicKeyPem(): string {
    return this.#publicKeys.get(this.keyId)!.export({ type: "spki", format: "pem" }).toString();
  }

  /** Trust another writer's public key (SPKI PEM); returns its key id. */
  trust(publicKeyPem: string): string {
    const key = createPublicKey(publicKeyPem);
    const id = keyIdOf(key);
    this.#publicKeys.set(id, key);
    return id;
  }

  /** Sign a session's head. */
  sign(sessionId: string, position: number, hash: string): HeadSignature {
    const signature = sign(null, headSigningMessage(sessionId, position, hash), this.#privateKey);
    const signed = { signature: signature.toString("base64"), key_id: this.keyId };
    this.#remember(sessionId, position, hash, signed);
    return signed;
  }

  /** Check a head's signature against the keys this signer knows. */
  check(sessionId: string, position: number, hash: string, signed: HeadSignature): SignatureCheck {
    // Every append reads the head it chains on: the one this signer signed (or checked) last.
    if (this.#known.get(sessionId) === knownHead(position, hash, signed)) return "valid";
    const key = this.#publicKeys.get(signed.key_id);
    if (key === undefined) return "unknown_key";
    const bytes = Buffer.from(signed.signature, "base64");
    const valid = verify(null, headSigningMessage(sessionId, position, hash), key, bytes);
    if (valid) this.#remember(sessionId, position, hash, signed);
    return valid ? "valid" : "invalid";
  }

  /**
   * The latest head of a session this signer signed or found valid. A head read again with
   * exactly these bytes needs no second verification (Ed25519 verification is the dearest step
   * of an append); any other bytes are verified. Bounded: the oldest sessions are forgotten.
   */
  #remember(sessionId: string, position: number, hash: string, signed: HeadSignature): void {
    this.#known.delete(sessionId);
    this.#known.set(sessionId, knownHead(position, hash, signed));
    if (this.#known.size > maxKnownHeads) this.#known.delete(this.#known.keys().next().value!);
  }
}

/** How many sessions' latest heads a signer remembers as verified. */
const maxKnownHeads = 10_000;

function knownHead(position: number, hash: string, signed: HeadSignature): string {
  return `${position}|${hash}|${signed.key_id}|${signed.signature}`;
}
