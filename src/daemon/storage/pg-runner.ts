/**
 * Runs SQL programs (sql-program.ts) on a PostgreSQL connection, asynchronously.
 *
 * Boundary rule: the program's `?` placeholders become `$1..$n` here (programs never put a `?`
 * in a literal); BIGINT and COUNT come back as numbers (`pgTypesOf`, given to every pool of the
 * daemon: the values it stores are milliseconds and counters, far below 2^53). A statement that
 * fails is thrown into the program, but PostgreSQL has then aborted the transaction: a program
 * may turn such an error into its own, never carry on with more statements.
 */
import type pg from "pg";
import { unreachable } from "../../model/unreachable.js";
import type { SqlProgram, SqlStep, SqlValue } from "./sql-program.js";

/** Something that runs a query: a pool or one client of it. */
export type PgQueryable = Pick<pg.PoolClient, "query">;

const int8 = 20;
const numeric = 1700;

/** Type parsers for the daemon's pools of `driver`: int8 and numeric as JavaScript numbers. */
export function pgTypesOf(driver: typeof pg): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (oid === int8 || oid === numeric) return (text: string) => Number(text);
      return driver.types.getTypeParser(oid, format as "text");
    }) as pg.CustomTypesConfig["getTypeParser"],
  };
}

const numbered = new Map<string, string>();
/** Programs' texts are a fixed set; the bound only guards against one that builds its SQL. */
const numberedLimit = 4096;

/** `sql` with each `?` replaced by `$1`, `$2`, ... (memoised: programs reuse their texts). */
function numberPlaceholders(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (numbered.size < numberedLimit) numbered.set(sql, text);
  }
  return text;
}

/**
 * The step's parameters as the driver takes them. Not copied: pg only reads the array (it maps
 * each value as it serialises the Bind message) and the program never reuses it.
 */
function valuesOf(step: { params: readonly SqlValue[] }): SqlValue[] {
  return step.params as SqlValue[];
}

async function execute(queryable: PgQueryable, step: SqlStep): Promise<unknown> {
  switch (step.op) {
    case "get":
      return (await queryable.query(numberPlaceholders(step.sql), valuesOf(step))).rows[0];
    case "all":
      return (await queryable.query(numberPlaceholders(step.sql), valuesOf(step))).rows;
    case "run":
      return { changes: (await queryable.query(numberPlaceholders(step.sql), valuesOf(step))).rowCount ?? 0 };
    case "dialect":
      return "postgres";
    default:
      unreachable(step, "unknown SQL step");
  }
}

/** Run `program` on `queryable` (in the caller's transaction, if it holds one). */
export async function runPg<T>(queryable: PgQueryable, program: SqlProgram<T>): Promise<T> {
  let next = program.next();
  while (!next.done) {
    let result: unknown;
    try {
      result = await execute(queryable, next.value);
    } catch (error) {
      next = program.throw(error);
      continue;
    }
    next = program.next(result);
  }
  return next.value;
}
