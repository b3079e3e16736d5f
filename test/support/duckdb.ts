import { type DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { afterAll, beforeAll } from "vitest"

/** One in-memory DuckDB connection for a whole test file: opened before its tests, closed after. */
export const sharedDuckDbConnection = (): (() => DuckDBConnection) => {
  let instance: DuckDBInstance | undefined
  let connection: DuckDBConnection | undefined
  beforeAll(async () => {
    instance = await DuckDBInstance.create(":memory:")
    connection = await instance.connect()
  })
  afterAll(() => {
    connection?.closeSync()
    instance?.closeSync()
  })
  return () => {
    if (connection === undefined) throw new Error("the shared DuckDB connection is used outside a test")
    return connection
  }
}
