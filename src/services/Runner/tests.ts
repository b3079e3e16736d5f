import { Data, Effect } from "effect"
import type { DataTest, ModelContract } from "../../schemas/model"
import { normalizeType } from "../Project/sql"
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

/** A `[[tests]]` entry names a column the model does not output: said so, not as DuckDB's binder error. */
export class DataTestColumnMissing extends Data.TaggedError("DataTestColumnMissing")<{
  readonly model: string
  readonly test: string
  readonly column: string
  readonly columns: ReadonlyArray<string>
}> {
  readonly code = "data-test-column-missing"
  override get message() {
    const shown = this.columns.slice(0, 8).join(", ") + (this.columns.length > 8 ? ", …" : "")
    return `model ${this.model}: test ${this.test} names column ${this.column}, which the model does not output (it has ${shown || "no columns"})`
  }
}

/** The columns a test names (an expression's are DuckDB's to find). */
export const testColumns = (test: DataTest): ReadonlyArray<string> =>
  test.type === "composite" ? test.columns : "column" in test ? [test.column] : []

/** The first test naming a column `columns` lacks (case-insensitive, as DuckDB binds), if any. */
export const missingTestColumn = (model: string, tests: ReadonlyArray<DataTest>, columns: ReadonlyArray<string>) => {
  const have = new Set(columns.map((c) => c.toLowerCase()))
  for (const test of tests) {
    const column = testColumns(test).find((c) => !have.has(c.toLowerCase()))
    if (column !== undefined) return new DataTestColumnMissing({ model, test: describeTest(test), column, columns })
  }
  return undefined
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

/** Offending rows per test, evaluated in order: the first failing `error` test fails, `warning` ones become lines. */
const judge = (model: string, tests: ReadonlyArray<DataTest>, failing: ReadonlyArray<number>) => {
  const warnings: Array<string> = []
  for (let i = 0; i < tests.length; i++) {
    const test = tests[i]!
    const count = failing[i] ?? 0
    if (count === 0) continue
    if (test.severity === "error") return new DataTestFailed({ model, test: describeTest(test), failing: count })
    warnings.push(`test ${describeTest(test)} failed (${count} offending)`)
  }
  return warnings
}

/** One select-list expression per test giving its offending count, over `relation` aggregated once. */
const fusedExpression = (test: DataTest, relation: string): string => {
  const where = (cond: string) => `count(*) FILTER (WHERE ${test.filter === undefined ? cond : `(${test.filter}) AND (${cond})`})`
  switch (test.type) {
    case "not_null":
      return where(`${quoteIdent(test.column)} IS NULL`)
    case "accepted_values":
      return where(`${quoteIdent(test.column)} IS NOT NULL AND ${quoteIdent(test.column)} NOT IN (${test.values.map(literal).join(", ")})`)
    case "expression":
      return where(`NOT coalesce((${test.expression}), FALSE)`)
    case "row_count_range": {
      const n = test.filter === undefined ? "count(*)" : `count(*) FILTER (WHERE ${test.filter})`
      const conds = [
        test.min === undefined ? undefined : `${n} < ${test.min}`,
        test.max === undefined ? undefined : `${n} > ${test.max}`
      ].filter((c): c is string => c !== undefined)
      return `CASE WHEN ${conds.length === 0 ? "FALSE" : conds.join(" OR ")} THEN 1 ELSE 0 END`
    }
    case "unique": {
      // Not the count itself: zero exactly when it is (no value repeats, and at most one NULL, since
      // grouping makes the NULLs one group), without grouping. `exactCounts` replaces a non-zero one.
      const column = quoteIdent(test.column)
      const only = test.filter === undefined ? "" : ` FILTER (WHERE ${test.filter})`
      return `count(${column})${only} - count(DISTINCT ${column})${only} + CASE WHEN ${where(`${column} IS NULL`)} > 1 THEN 1 ELSE 0 END`
    }
    case "composite":
      // Grouping needs its own pass; as a scalar subquery it still rides in the same statement.
      return `(${testQuery(test, relation)})`
  }
}

/** The fused statement's answers as offending counts: a `unique` test that found repeats is counted by its own query. */
const exactCounts = (tests: ReadonlyArray<DataTest>, answers: ReadonlyArray<unknown>, relation: string) => {
  const counts = tests.map((_, i) => Number(answers[i] ?? 0))
  const recount = (test: DataTest, i: number) => test.type === "unique" && counts[i] !== 0
  if (!tests.some(recount)) return Effect.succeed(counts)
  return Effect.flatMap(Warehouse, (wh) =>
    Effect.forEach(tests, (test, i) =>
      recount(test, i) ? Effect.map(wh.execute(testQuery(test, relation)), (result) => Number(result.rows[0]?.[0] ?? 0)) : Effect.succeed(counts[i]!)
    )
  )
}

/**
 * All of a model's tests as one statement: row-level tests and single-column uniqueness share one
 * scan of the relation (aggregates with FILTER), composite uniqueness rides along as a scalar subquery.
 */
const fusedTestQuery = (tests: ReadonlyArray<DataTest>, relation: string): string =>
  `SELECT ${tests.map((t) => fusedExpression(t, relation)).join(",\n  ")}\nFROM ${relation}`

/**
 * The fused test statement failed inside the build's transaction, which went with it (and the
 * relation it tested): the build runs again with its tests one by one (`buildModel`).
 */
export class FusedStatementFailed extends Data.TaggedError("FusedStatementFailed")<{ readonly cause: StatementFailed }> {
  readonly code = "statement-failed"
  override get message() {
    return this.cause.message
  }
}

/**
 * What a failing fused test statement leads to: the tests one by one on the same relation, or,
 * where the relation went with the failure (a build's transaction), `FusedStatementFailed`; or
 * the tests one by one from the start (the build's second, step-by-step run).
 */
export type TestMode = "fused-then-one-by-one" | "fused-or-fail" | "one-by-one"

/** The fused statement's answers (one per test, in order) judged: the first failing `error` test fails, `warning` ones become lines. */
const judgeFused = (model: string, tests: ReadonlyArray<DataTest>, answers: ReadonlyArray<unknown>, relation: string) =>
  Effect.flatMap(exactCounts(tests, answers, relation), (failing) => {
    const verdict = judge(model, tests, failing)
    return verdict instanceof DataTestFailed ? Effect.fail(verdict) : Effect.succeed(verdict)
  })

const sequentialTests = (model: string, tests: ReadonlyArray<DataTest>, relation: string) =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    // Only here, after a statement failed (never on the passing path): a missing column is named as such.
    const described = yield* Effect.either(wh.execute(`DESCRIBE SELECT * FROM ${relation}`))
    const missing = described._tag === "Right" ? missingTestColumn(model, tests, described.right.rows.map((r) => String(r[0]))) : undefined
    if (missing !== undefined) return yield* missing
    const failing: Array<number> = []
    for (const test of tests) {
      const result = yield* wh.execute(testQuery(test, relation))
      failing.push(Number(result.rows[0]?.[0] ?? 0))
      const verdict = judge(model, tests.slice(0, failing.length), failing)
      if (verdict instanceof DataTestFailed) return yield* verdict
    }
    return judge(model, tests, failing) as ReadonlyArray<string>
  })

/**
 * Runs a model's tests against a relation (the staged result, before it is published), fused
 * into one statement. Fails on the first `error` test with offenders; returns one warning line
 * per failing `warning` test. When the fused statement fails (a bad expression), the tests run
 * one by one so the failure is the same one, at the same test, as unfused (see `TestMode`).
 */
export const runDataTests = (
  model: string,
  tests: ReadonlyArray<DataTest>,
  relation: string,
  mode: TestMode = "fused-then-one-by-one"
): Effect.Effect<ReadonlyArray<string>, DataTestFailed | DataTestColumnMissing | StatementFailed | FusedStatementFailed, Warehouse> =>
  Effect.gen(function* () {
    if (tests.length === 0) return []
    if (mode === "one-by-one") return yield* sequentialTests(model, tests, relation)
    const wh = yield* Warehouse
    const fused = yield* Effect.either(wh.execute(fusedTestQuery(tests, relation)))
    if (fused._tag === "Right") return yield* judgeFused(model, tests, fused.right.rows[0] ?? [], relation)
    return mode === "fused-or-fail" ? yield* new FusedStatementFailed({ cause: fused.left }) : yield* sequentialTests(model, tests, relation)
  })

/** Integer types: signedness and width in bits. */
const integers: Record<string, { readonly signed: boolean; readonly bits: number }> = {
  TINYINT: { signed: true, bits: 8 },
  SMALLINT: { signed: true, bits: 16 },
  INTEGER: { signed: true, bits: 32 },
  BIGINT: { signed: true, bits: 64 },
  HUGEINT: { signed: true, bits: 128 },
  UTINYINT: { signed: false, bits: 8 },
  USMALLINT: { signed: false, bits: 16 },
  UINTEGER: { signed: false, bits: 32 },
  UBIGINT: { signed: false, bits: 64 },
  UHUGEINT: { signed: false, bits: 128 }
}

/** Decimal digits an integer type needs. */
const integerDigits = (t: { readonly signed: boolean; readonly bits: number }) =>
  ({ 8: 3, 16: 5, 32: 10, 64: t.signed ? 19 : 20, 128: 39 })[t.bits] ?? 39

const decimalOf = (type: string) => {
  const m = /^DECIMAL\((\d+),(\d+)\)$/.exec(type)
  return m === null ? undefined : { precision: Number(m[1]), scale: Number(m[2]) }
}

export const isIntegerType = (type: string): boolean => normalizeType(type) in integers

/**
 * True when every value of `actual` fits `declared` exactly: the same type, a wider integer
 * (unsigned into a wider signed one), FLOAT into DOUBLE, small integers into floating point,
 * or a decimal/integer into a decimal with at least as many integer and fraction digits.
 */
export const canWiden = (actualType: string, declaredType: string): boolean => {
  const actual = normalizeType(actualType)
  const declared = normalizeType(declaredType)
  if (actual === declared) return true
  const a = integers[actual]
  const d = integers[declared]
  if (a !== undefined && d !== undefined) {
    if (a.signed === d.signed) return a.bits <= d.bits
    return !a.signed && a.bits < d.bits
  }
  if (actual === "FLOAT" && declared === "DOUBLE") return true
  if (a !== undefined && declared === "DOUBLE") return a.bits <= 32
  if (a !== undefined && declared === "FLOAT") return a.bits <= 16
  const target = decimalOf(declared)
  if (target === undefined) return false
  if (a !== undefined) return target.precision - target.scale >= integerDigits(a)
  const source = decimalOf(actual)
  return source !== undefined && target.scale >= source.scale && target.precision - target.scale >= source.precision - source.scale
}

/** Warning code: a contract column that is not required is missing from the output (decisions.md item 25). */
export const W010 = "W010"

export interface ContractCheck {
  /** Output columns whose select expression is an integer literal (lower case): they satisfy any integer width. */
  readonly integerLiterals: Effect.Effect<ReadonlySet<string>>
}

/**
 * Checks the relation against the contract (decisions.md item 25): a missing `required` column,
 * a type that cannot widen to the declared one, or NULLs in a non-nullable column fail; an
 * integer literal satisfies an integer column of any width; a missing column that is not
 * required is warning W010, returned as a line.
 */
export const checkContract = (
  model: string,
  contract: ModelContract,
  relation: string,
  check: ContractCheck = { integerLiterals: Effect.succeed(new Set()) }
): Effect.Effect<ReadonlyArray<string>, ContractViolation | StatementFailed, Warehouse> =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    const described = yield* wh.execute(`DESCRIBE SELECT * FROM ${relation}`)
    const actual = new Map(described.rows.map((r) => [String(r[0]).toLowerCase(), String(r[1])]))
    const required = new Set(contract.rules.required.map((n) => n.toLowerCase()))
    const missingRequired = contract.rules.required.filter((n) => !actual.has(n.toLowerCase()))
    if (missingRequired.length > 0) {
      return yield* new ContractViolation({
        model,
        detail: `required column${missingRequired.length === 1 ? "" : "s"} ${missingRequired.join(", ")} missing from the output`
      })
    }
    const warnings: Array<string> = []
    const problems: Array<string> = []
    let literals: ReadonlySet<string> | undefined
    for (const column of contract.columns) {
      const key = column.name.toLowerCase()
      const type = actual.get(key)
      if (type === undefined) {
        if (!required.has(key)) {
          warnings.push(`${W010} contract column ${column.name} (${column.type}) is missing from the output; it is not required`)
        }
        continue
      }
      if (canWiden(type, column.type)) continue
      if (isIntegerType(type) && isIntegerType(column.type)) {
        literals ??= yield* check.integerLiterals
        if (literals.has(key)) continue
      }
      problems.push(`column ${column.name} has type ${type}, contract says ${column.type} (it cannot widen)`)
    }
    if (problems.length > 0) return yield* new ContractViolation({ model, detail: problems.join("; ") })
    const nonNullable = contract.columns.filter((c) => !c.nullable && actual.has(c.name.toLowerCase()))
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
    return warnings
  })
