import { Context, Effect, Layer, Option, Schema } from "effect"
import { TableInfo, TableList } from "../../schemas/warehouse-api"
import { WarehouseStatements, type StatementError } from "./statements"
import { type WarehouseCallError, WarehouseClient } from "./WarehouseClient"

export interface WarehouseCatalogService {
  /** `CREATE CATALOG IF NOT EXISTS` through the statement API. */
  readonly createCatalog: (catalog: string) => Effect.Effect<void, StatementError>
  /** `CREATE SCHEMA IF NOT EXISTS catalog.schema` through the statement API. */
  readonly createSchema: (catalog: string, schema: string) => Effect.Effect<void, StatementError>
  /** `GET /api/2.1/unity-catalog/tables/{full}`; none on 404. */
  readonly getTable: (catalog: string, schema: string, table: string) => Effect.Effect<Option.Option<TableInfo>, WarehouseCallError>
  /** `GET /api/2.1/unity-catalog/tables`, draining `next_page_token`. */
  readonly listTables: (catalog: string, schema: string) => Effect.Effect<ReadonlyArray<TableInfo>, WarehouseCallError>
  /** `DELETE /api/2.1/unity-catalog/tables/{full}`. */
  readonly dropTable: (catalog: string, schema: string, table: string) => Effect.Effect<void, WarehouseCallError>
}

export class WarehouseCatalog extends Context.Tag("pcli/WarehouseCatalog")<WarehouseCatalog, WarehouseCatalogService>() {}

const TABLES = "/api/2.1/unity-catalog/tables"

/** A backtick-quoted identifier; a backtick inside is doubled. */
export const quoteIdentifier = (name: string) => "`" + name.replace(/`/g, "``") + "`"

/** Each part percent-encoded, the dots between parts literal. */
const fullName = (catalog: string, schema: string, table: string) =>
  [catalog, schema, table].map(encodeURIComponent).join(".")

export const make = Effect.gen(function* () {
  const client = yield* WarehouseClient
  const statements = yield* WarehouseStatements

  const getTable = (catalog: string, schema: string, table: string) =>
    client.call({ method: "GET", path: `${TABLES}/${fullName(catalog, schema, table)}` }, TableInfo).pipe(
      Effect.map(Option.some),
      Effect.catchIf(
        (error) => error._tag === "WarehouseApiError" && error.status === 404,
        () => Effect.succeed(Option.none<TableInfo>())
      )
    )

  const listTables = (catalog: string, schema: string) =>
    Effect.gen(function* () {
      const tables: Array<TableInfo> = []
      let pageToken: string | undefined
      do {
        const page = yield* client.call(
          {
            method: "GET",
            path: TABLES,
            query: { catalog_name: catalog, schema_name: schema, ...(pageToken === undefined ? {} : { page_token: pageToken }) }
          },
          TableList
        )
        tables.push(...page.tables)
        pageToken = page.next_page_token === "" ? undefined : page.next_page_token
      } while (pageToken !== undefined)
      return tables
    })

  return WarehouseCatalog.of({
    createCatalog: (catalog) => statements.execute(`CREATE CATALOG IF NOT EXISTS ${quoteIdentifier(catalog)}`).pipe(Effect.asVoid),
    createSchema: (catalog, schema) =>
      statements
        .execute(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(catalog)}.${quoteIdentifier(schema)}`)
        .pipe(Effect.asVoid),
    getTable,
    listTables,
    dropTable: (catalog, schema, table) =>
      client
        .call({ method: "DELETE", path: `${TABLES}/${fullName(catalog, schema, table)}` }, Schema.Struct({}))
        .pipe(Effect.asVoid)
  })
})

export const layer: Layer.Layer<WarehouseCatalog, never, WarehouseClient | WarehouseStatements> = Layer.effect(
  WarehouseCatalog,
  make
)
