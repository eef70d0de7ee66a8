/**
 * The secrets of named API tokens: how one is made and the digest it is stored and found by.
 *
 * Boundary rule: pure crypto. A secret carries 256 random bits, so its SHA-256 digest can be
 * looked up by an index: the lookup's timing tells an attacker only about digests, whose
 * preimages they cannot find. The digest found is compared again in constant time.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";

/** A new token secret: `skn_` and 32 random bytes in base64url (visible ASCII, fit for a header). */
export function newTokenSecret(): string {
  return `skn_${randomBytes(32).toString("base64url")}`;
}

/** SHA-256 (hex) of a secret (a token's, a login cookie's or code's): what is kept of it. */
export function secretDigest(secret: string): string {
  return hash("sha256", secret, "hex");
}

/** True when two hex digests are equal (constant time for equal lengths). */
export function digestsEqual(left: string, right: string): boolean {
  const a = Buffer.from(left, "utf8");
  const b = Buffer.from(right, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}
