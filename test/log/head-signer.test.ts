import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HeadSigner } from "../../src/log/head-signer.js";

const hashArb = fc.stringMatching(/^[0-9a-f]{64}$/);

describe("HeadSigner", () => {
  it("accepts the head it signed, read back unchanged, and refuses any changed field", () => {
    const signer = HeadSigner.generate();
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.nat(1_000_000),
        hashArb,
        hashArb,
        fc.uuid(),
        (sessionId, position, hash, otherHash, otherSession) => {
          const signed = signer.sign(sessionId, position, hash);
          // Twice: the second check is answered from what the signer remembers.
          expect(signer.check(sessionId, position, hash, signed)).toBe("valid");
          expect(signer.check(sessionId, position, hash, signed)).toBe("valid");
          expect(signer.check(sessionId, position + 1, hash, signed)).toBe("invalid");
          if (otherHash !== hash)
            expect(signer.check(sessionId, position, otherHash, signed)).toBe("invalid");
          if (otherSession !== sessionId)
            expect(signer.check(otherSession, position, hash, signed)).toBe("invalid");
          const flipped = Buffer.from(signed.signature, "base64");
          flipped[0] = flipped[0]! ^ 1;
          const forged = { ...signed, signature: flipped.toString("base64") };
          expect(signer.check(sessionId, position, hash, forged)).toBe("invalid");
          expect(signer.check(sessionId, position, hash, { ...signed, key_id: "other" })).toBe("unknown_key");
        },
      ),
      { numRuns: 50 },
    );
  });

  it("verifies another signer's heads with its trusted public key, and still refuses a forged one after a valid one", () => {
    const writer = HeadSigner.generate();
    const reader = HeadSigner.generate();
    reader.trust(writer.publicKeyPem());
    const signed = writer.sign("s", 7, "a".repeat(64));
    expect(reader.check("s", 7, "a".repeat(64), signed)).toBe("valid");
    expect(reader.check("s", 7, "a".repeat(64), signed)).toBe("valid");
    const other = writer.sign("s", 8, "b".repeat(64));
    expect(reader.check("s", 8, "b".repeat(64), { ...other, signature: signed.signature })).toBe("invalid");
    expect(reader.check("s", 8, "b".repeat(64), other)).toBe("valid");
  });

  it("trusts the keys its source lists now: a key dropped from the list stops verifying at once", () => {
    const writer = HeadSigner.generate();
    const reader = HeadSigner.generate();
    let listed: string[] = ["not a key", writer.publicKeyPem()];
    reader.trustFrom(() => listed);
    const signed = writer.sign("s", 3, "c".repeat(64));
    expect(reader.trusts(writer.keyId)).toBe(true);
    expect(reader.check("s", 3, "c".repeat(64), signed)).toBe("valid");
    listed = [];
    expect(reader.trusts(writer.keyId)).toBe(false);
    expect(reader.check("s", 3, "c".repeat(64), signed)).toBe("unknown_key");
  });

  it("refuses to trust a key that is not an Ed25519 public key", () => {
    const signer = HeadSigner.generate();
    expect(() => signer.trust("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")).toThrow(
      /public key/,
    );
    expect(() => signer.trust(signer.privateKeyPem())).toThrow(/SPKI/);
  });
});
