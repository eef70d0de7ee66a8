/**
 * The storage port's two backends for a test file: SQLite in a temporary database, and
 * PostgreSQL in a schema of the file's own, emptied before each storage opens so each test has
 * its own tables.
 */
import { afterAll, beforeAll, onTestFinished } from "vitest";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { HeadSigner } from "../../../src/log/head-signer.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { tempDatabase } from "./temp-database.js";

/** A backend under test: its name and fresh storage for the current test. */
export interface StorageBackend {
  name: string;
  open(): Promise<SessionStorage>;
}

/**
 * PostgreSQL storage on `schema`, emptied first, closed when the current test finishes (heads
 * and state checkpoints signed by `options.signer`, if given).
 */
export async function freshPgSessionStorage(
  schema: PgSchema,
  options: { signer?: HeadSigner } = {},
): Promise<PgSessionStorage> {
  await schema.query(`DROP SCHEMA ${schema.name} CASCADE; CREATE SCHEMA ${schema.name}`);
  const storage = new PgSessionStorage(await openPgDaemonDatabase(schema.url, { max: 4 }), options);
  onTestFinished(() => storage.close());
  return storage;
}

/** Both backends, the PostgreSQL one in a schema named after `prefix` made for the calling file. */
export function storageBackends(prefix: string): StorageBackend[] {
  let schema: PgSchema | undefined;
  beforeAll(async () => {
    schema = await createPgSchema(prefix);
  });
  afterAll(async () => {
    await schema?.drop();
  });
  return [
    { name: "SQLite", open: async () => new SqliteSessionStorage(tempDatabase().db) },
    {
      name: "PostgreSQL",
      open: () => {
        if (schema === undefined) throw new Error("the PostgreSQL schema is read before it was made");
        return freshPgSessionStorage(schema);
      },
    },
  ];
}
