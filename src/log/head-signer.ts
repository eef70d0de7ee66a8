/**
 * Signed heads: an Ed25519 key that signs each session's recorded head (session, position,
 * hash), so a log rewritten and re-hashed behind a store's back (with its recorded head moved
 * along) no longer verifies: the forger cannot make the signature without the private key.
 *
 * Boundary rule: keys and signatures only, no storage. A signer knows its own key pair and the
 * public keys it was told to trust (other writers of a shared database, pinned by its owner:
 * never learned from the data it checks); a signature by a key it does not trust is reported
 * as such, never accepted as valid.
 */
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
  verify,
} from "node:crypto";
import { headKeyIdOf, parseHeadPublicKey } from "../model/head-key.js";

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

/**
 * The bytes a state checkpoint's signature covers (see state-checkpoint.ts): its own version
 * prefix, so a head signature can never pass for a checkpoint's or the other way round.
 */
function checkpointSigningMessage(sessionId: string, position: number, hash: string, digest: string): Buffer {
  return Buffer.from(`skein-checkpoint-v1\n${sessionId}\n${position}\n${hash}\n${digest}`, "utf8");
}

/** A key's id: the first 16 hex digits of SHA-256 over its DER-encoded public key. */
export const keyIdOf = headKeyIdOf;

/**
 * Where a signer finds the public keys it trusts besides its own, asked whenever a head names
 * another key (so a changed list takes effect at once): SPKI PEM texts. A text that is not an
 * Ed25519 public key is ignored (the list's owner validates it).
 */
export type TrustedKeySource = () => readonly string[];

export class HeadSigner {
  readonly keyId: string;
  readonly #privateKey: KeyObject;
  readonly #publicKey: KeyObject;
  /** Keys trusted for good (`trust`). */
  readonly #trusted = new Map<string, KeyObject>();
  #source: TrustedKeySource | null = null;
  /** The keys of the source's texts, parsed once per text. */
  readonly #parsed = new Map<string, { id: string; key: KeyObject } | null>();
  /** Per session, the head last signed or verified with this signer's own key (see `#remember`). */
  readonly #known = new Map<string, string>();

  private constructor(privateKey: KeyObject) {
    if (privateKey.asymmetricKeyType !== "ed25519") {
      throw new Error(`a head signing key must be Ed25519, not ${String(privateKey.asymmetricKeyType)}`);
    }
    this.#privateKey = privateKey;
    this.#publicKey = createPublicKey(privateKey);
    this.keyId = keyIdOf(this.#publicKey);
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
    return this.#publicKey.export({ type: "spki", format: "pem" }).toString();
  }

  /** Trust another writer's public key (SPKI PEM) for good; returns its key id. */
  trust(publicKeyPem: string): string {
    const key = parseHeadPublicKey(publicKeyPem);
    const id = keyIdOf(key);
    if (id !== this.keyId) this.#trusted.set(id, key);
    return id;
  }

  /** Also trust the keys `source` lists, asked again at each check of another key's head. */
  trustFrom(source: TrustedKeySource): void {
    this.#source = source;
  }

  /** Whether a head signed by `keyId` can verify here (this signer's key, or one it trusts now). */
  trusts(keyId: string): boolean {
    return keyId === this.keyId || this.#keyFor(keyId) !== undefined;
  }

  /** Sign a session's head. */
  sign(sessionId: string, position: number, hash: string): HeadSignature {
    const signature = sign(null, headSigningMessage(sessionId, position, hash), this.#privateKey);
    const signed = { signature: signature.toString("base64"), key_id: this.keyId };
    this.#remember(sessionId, position, hash, signed);
    return signed;
  }

  /** Check a head's signature against the keys this signer trusts. */
  check(sessionId: string, position: number, hash: string, signed: HeadSignature): SignatureCheck {
    const own = signed.key_id === this.keyId;
    // Every append reads the head it chains on: the one this signer signed (or checked) last.
    if (own && this.#known.get(sessionId) === knownHead(position, hash, signed)) return "valid";
    const key = own ? this.#publicKey : this.#keyFor(signed.key_id);
    if (key === undefined) return "unknown_key";
    const bytes = Buffer.from(signed.signature, "base64");
    const valid = verify(null, headSigningMessage(sessionId, position, hash), key, bytes);
    // Only heads of this signer's own key are remembered: another key may stop being trusted.
    if (valid && own) this.#remember(sessionId, position, hash, signed);
    return valid ? "valid" : "invalid";
  }

  /** Sign a state checkpoint: the session, its position and hash, and the digest of its state. */
  signCheckpoint(sessionId: string, position: number, hash: string, digest: string): HeadSignature {
    const message = checkpointSigningMessage(sessionId, position, hash, digest);
    return { signature: sign(null, message, this.#privateKey).toString("base64"), key_id: this.keyId };
  }

  /** Check a state checkpoint's signature against the keys this signer trusts. */
  checkCheckpoint(
    sessionId: string,
    position: number,
    hash: string,
    digest: string,
    signed: HeadSignature,
  ): SignatureCheck {
    const key = signed.key_id === this.keyId ? this.#publicKey : this.#keyFor(signed.key_id);
    if (key === undefined) return "unknown_key";
    const message = checkpointSigningMessage(sessionId, position, hash, digest);
    return verify(null, message, key, Buffer.from(signed.signature, "base64")) ? "valid" : "invalid";
  }

  #keyFor(keyId: string): KeyObject | undefined {
    const fixed = this.#trusted.get(keyId);
    if (fixed !== undefined || this.#source === null) return fixed;
    for (const text of this.#source()) {
      let parsed = this.#parsed.get(text);
      if (parsed === undefined) {
        try {
          const key = parseHeadPublicKey(text);
          parsed = { id: keyIdOf(key), key };
        } catch {
          parsed = null;
        }
        if (this.#parsed.size >= maxParsedKeys) this.#parsed.clear();
        this.#parsed.set(text, parsed);
      }
      if (parsed?.id === keyId) return parsed.key;
    }
    return undefined;
  }

  /**
   * The latest head of a session this signer signed or found valid under its own key. A head
   * read again with exactly these bytes needs no second verification (Ed25519 verification is
   * the dearest step of an append); any other bytes are verified. Bounded: the oldest sessions
   * are forgotten.
   */
  #remember(sessionId: string, position: number, hash: string, signed: HeadSignature): void {
    this.#known.delete(sessionId);
    this.#known.set(sessionId, knownHead(position, hash, signed));
    if (this.#known.size > maxKnownHeads) this.#known.delete(this.#known.keys().next().value!);
  }
}

/** How many key texts of a source a signer keeps parsed. */
const maxParsedKeys = 1_024;

/** How many sessions' latest heads a signer remembers as verified. */
const maxKnownHeads = 10_000;

function knownHead(position: number, hash: string, signed: HeadSignature): string {
  return `${position}|${hash}|${signed.key_id}|${signed.signature}`;
}
