import { Data, Effect } from "effect"
import type { DataTest, ModelContract } from "../../schemas/model"
import { type StatementFailed, Warehouse } from "../Warehouse/Warehouse"

/** A `[[tests]]` entry of severity `error` found offending rows; nothing was published. */
export class DataTestFailed extends Data.TaggedError("DataTestFailed")<{
  readonly model: string
  readonly test: string
  readonly failing: number
}> {
  readonly code = "data-test-failed"
  override get message() {
    return `model ${this.model}: test ${this.test} failed (${this.failing} offending)`
  }
}

/** The built relation does not satisfy `<model>.contract.toml`; nothing was published. */
export class ContractViolation extends Data.TaggedError("ContractViolation")<{
  readonly model: string
  readonly detail: string
}> {
  readonly code = "contract-violation"
  override get message() {
    return `model ${this.model}: contract violated: ${this.detail}`
  }
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

const literal = (v: string | number | boolean) =>
  typeof v === "string" ? `'${v.replace(/'/g, "''")}'` : typeof v === "boolean" ? (v ? "TRUE" : "FALSE") : String(v)

/** One-line name of a test, used in errors and warnings. */
export const describeTest = (test: DataTest): string => {
  switch (test.type) {
    case "not_null":
      return `not_null(${test.column})`
    case "unique":
      return `unique(${test.column})`
    case "composite":
      return `unique(${test.columns.join(", ")})`
    case "accepted_values":
      return `accepted_values(${test.column})`
    case "expression":
      return `expression(${test.expression})`
    case "row_count_range":
      return `row_count_range(${test.min ?? ""}..${test.max ?? ""})`
  }
}

/** A query returning one number: offending rows (or, for row_count_range, 1 when out of range). */
export const testQuery = (test: DataTest, relation: string): string => {
  const from = test.filter === undefined ? relation : `(SELECT * FROM ${relation} WHERE ${test.filter})`
  switch (test.type) {
    case "not_null":
      return `SELECT count(*) FROM ${from} WHERE ${quoteIdent(test.column)} IS NULL`
    case "unique":
    case "composite": {
      const cols = (test.type === "unique" ? [test.column] : test.columns).map(quoteIdent).join(", ")
      return `SELECT count(*) FROM (SELECT ${cols} FROM ${from} GROUP BY ${cols} HAVING count(*) > 1)`
    }
    case "accepted_values":
      return `SELECT count(*) FROM ${from} WHERE ${quoteIdent(test.column)} IS NOT NULL AND ${quoteIdent(test.column)} NOT IN (${test.values.map(literal).join(", ")})`
    case "expression":
      return `SELECT count(*) FROM ${from} WHERE NOT coalesce((${test.expression}), FALSE)`
    case "row_count_range": {
      const conds = [
        test.min === undefined ? undefined : `n < ${test.min}`,
        test.max === undefined ? undefined : `n > ${test.max}`
      ].filter((c): c is string => c !== undefined)
      return `SELECT CASE WHEN ${conds.length === 0 ? "FALSE" : conds.join(" OR ")} THEN 1 ELSE 0 END FROM (SELECT count(*) AS n FROM ${from})`
    }
  }
}

/**
 * Runs a model's tests against a relation (the staged result, before it is published).
 * Fails on the first `error` test with offenders; returns one warning line per failing `warning` test.
 */
export const runDataTests = (
  model: string,
  tests: ReadonlyArray<DataTest>,
  relation: string
): Effect.Effect<ReadonlyArray<string>, DataTestFailed | StatementFailed, Warehouse> =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const warnings: Array<string> = []
    for (const test of tests) {
      const result = yield* wh.execute(testQuery(test, relation))
      const failing = Number(result.rows[0]?.[0] ?? 0)
      if (failing === 0) continue
      if (test.severity === "error") return yield* new DataTestFailed({ model, test: describeTest(test), failing })
      warnings.push(`test ${describeTest(test)} failed (${failing} offending)`)
    }
    return warnings
  })

/** Contract type spellings (product specs use ClickHouse-like names) mapped to DuckDB's. */
const typeAliases: Record<string, string> = {
  INT8: "TINYINT",
  INT16: "SMALLINT",
  INT32: "INTEGER",
  INT64: "BIGINT",
  INT: "INTEGER",
  LONG: "BIGINT",
  STRING: "VARCHAR",
  TEXT: "VARCHAR",
  FLOAT32: "FLOAT",
  FLOAT64: "DOUBLE",
  BOOL: "BOOLEAN",
  DATETIME: "TIMESTAMP"
}

export const normalizeType = (type: string): string => {
  const upper = type.trim().toUpperCase().replace(/\s+/g, "")
  return typeAliases[upper] ?? upper
}

/** Checks the relation's columns, types, required columns and non-nullable columns against the contract. */
export const checkContract = (
  model: string,
  contract: ModelContract,
  relation: string
): Effect.Effect<void, ContractViolation | StatementFailed, Warehouse> =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const described = yield* wh.execute(`DESCRIBE SELECT * FROM ${relation}`)
    const actual = new Map(described.rows.map((r) => [String(r[0]).toLowerCase(), String(r[1])]))
    for (const name of contract.rules.required) {
      if (!actual.has(name.toLowerCase())) {
        return yield* new ContractViolation({ model, detail: `required column ${name} is missing` })
      }
    }
    for (const column of contract.columns) {
      const type = actual.get(column.name.toLowerCase())
      if (type === undefined) {
        return yield* new ContractViolation({ model, detail: `column ${column.name} is missing` })
      }
      if (normalizeType(type) !== normalizeType(column.type)) {
        return yield* new ContractViolation({
          model,
          detail: `column ${column.name} has type ${type}, contract says ${column.type}`
        })
      }
    }
    const nonNullable = contract.columns.filter((c) => !c.nullable)
    if (nonNullable.length > 0) {
      const counts = nonNullable.map((c) => `count(*) FILTER (WHERE ${quoteIdent(c.name)} IS NULL)`).join(", ")
      const result = yield* wh.execute(`SELECT ${counts} FROM ${relation}`)
      const row = result.rows[0] ?? []
      for (let i = 0; i < nonNullable.length; i++) {
        const nulls = Number(row[i] ?? 0)
        if (nulls > 0) {
          return yield* new ContractViolation({
            model,
            detail: `column ${nonNullable[i]!.name} is not nullable but has ${nulls} NULL value(s)`
          })
        }
      }
    }
  })
