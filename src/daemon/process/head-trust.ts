/**
 * Which signed heads this home accepts. The trusted keys are this home's own and those
 * config.json lists (`trustedHeadKeys`); a key the database names (a cluster's `nodes` table)
 * is never trusted for being there, since anyone who can write the database could add one.
 * `$SKEIN_HOME/head-signing.json` (0600) records from when on every head must be signed.
 *
 * A home whose key is new requires signed heads from its first start. A home that already had
 * a key but no such file (its database may hold heads recorded before signing existed) first
 * signs, once, every unsigned head whose log verifies, and logs which; from then on an unsigned
 * head or one signed by an untrusted key is corruption. The file is the evidence that the step
 * was taken: it lives in the home, where a database writer cannot reach it, so clearing a
 * head's signature in the database never gets it signed again.
 *
 * Boundary rule: the file and the one-time step; what a signature is and how heads are checked
 * is the log's (log/head-signer.ts, log/head-record.ts).
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../../home/atomic-file.js";
import { homePaths } from "../../home/home.js";
import type { HeadSigner } from "../../log/head-signer.js";

/** What head-signing.json holds. */
export interface HeadSigningState {
  /** ISO time from which every head of this home's database must be signed by a trusted key. */
  every_head_signed_since: string;
  /** How many unsigned heads were signed then (0 for a home that signed from its start). */
  signed_at_start: number;
}

/** head-signing.json exists but cannot be used: the daemon does not start on a guess. */
export class HeadSigningStateError extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(
      `cannot use ${path}: ${reason}. It says since when every session head must be signed; ` +
        "restore it from a backup, or remove it to sign the unsigned heads of verified logs again",
    );
    this.name = "HeadSigningStateError";
  }
}

/** What `establishHeadTrust` needs to know and to do. */
export interface HeadTrustOptions {
  home: string;
  signer: HeadSigner;
  /** The signing key was made at this start (a new home: nothing to migrate). */
  keyCreated: boolean;
  /** Sign every unsigned head whose log verifies; the sessions signed. */
  signUnsignedHeads(): Promise<string[]>;
  /** config.json's `trustedHeadKeys` as of now (re-read when the file changes). */
  configuredKeys(): readonly string[];
  logger: { warn(data: object, message: string): void };
  now(): number;
}

/** Read the home's state (taking the one-time step when it has none) and make the signer trust what it names. */
export async function establishHeadTrust(options: HeadTrustOptions): Promise<HeadSigningState> {
  const path = homePaths(options.home).headSigning;
  let state = readHeadSigningState(path);
  if (state === null) {
    const signed = options.keyCreated ? [] : await options.signUnsignedHeads();
    if (signed.length > 0) {
      options.logger.warn(
        { sessions: signed.slice(0, 100), count: signed.length },
        "signed the unsigned heads of verified session logs, written before heads had to be signed; " +
          "from now on every head must be signed",
      );
    }
    state = {
      every_head_signed_since: new Date(options.now()).toISOString(),
      signed_at_start: signed.length,
    };
    await writeFileAtomic(path, `${JSON.stringify(state, null, 2)}\n`, 0o600);
  }
  options.signer.trustFrom(options.configuredKeys);
  return state;
}

/** The state in `path`, or null when the file does not exist. Throws HeadSigningStateError. */
export function readHeadSigningState(path: string): HeadSigningState | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new HeadSigningStateError(path, (error as Error).message);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HeadSigningStateError(path, "it is not valid JSON");
  }
  const state = value as Partial<Record<keyof HeadSigningState, unknown>> | null;
  if (
    typeof state !== "object" ||
    state === null ||
    typeof state.every_head_signed_since !== "string" ||
    Number.isNaN(Date.parse(state.every_head_signed_since)) ||
    !Number.isSafeInteger(state.signed_at_start)
  ) {
    throw new HeadSigningStateError(path, "it does not have the expected fields");
  }
  return {
    every_head_signed_since: state.every_head_signed_since,
    signed_at_start: state.signed_at_start as number,
  };
}
