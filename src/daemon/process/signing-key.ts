/**
 * `$SKEIN_HOME/head-signing-key.pem`: the key that signs every session's recorded head, made at
 * the first start and kept (mode 0600) so heads signed before a restart still verify.
 *
 * Boundary rule: this file owns the key file; what is signed and how is the log's business
 * (src/log/head-signer.ts).
 */
import { chmodSync, readFileSync } from "node:fs";
import { writeFileAtomic } from "../../home/atomic-file.js";
import { homePaths } from "../../home/home.js";
import { HeadSigner } from "../../log/head-signer.js";

/** The key file exists but does not hold a usable Ed25519 private key. */
class SigningKeyError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`cannot use the head signing key ${path}: ${reason}`);
    this.name = "SigningKeyError";
  }
}

/** The home's signing key, made (and stored 0600) when there is none yet; `created` says it was. */
export async function loadSigningKey(home: string): Promise<{ signer: HeadSigner; created: boolean }> {
  const path = homePaths(home).signingKey;
  let pem: string;
  try {
    pem = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new SigningKeyError(path, (error as Error).message);
    }
    const signer = HeadSigner.generate();
    await writeFileAtomic(path, signer.privateKeyPem(), 0o600);
    return { signer, created: true };
  }
  chmodSync(path, 0o600);
  try {
    return { signer: HeadSigner.fromPrivateKeyPem(pem), created: false };
  } catch (error) {
    throw new SigningKeyError(path, (error as Error).message);
  }
}
