import { Clock, Effect } from "effect"
import type { BranchDiffOutput, BranchListOutput, BranchOutput, BranchRecord, ModelDifference } from "../schemas/environment"
import { type EnvironmentRow, PRODUCTION } from "../services/Runner/environmentRows"
import { RunStore, RunStoreFailed } from "../services/Runner/RunStore"
import { PHYSICAL_SCHEMA } from "../services/Runner/virtual"
import { Warehouse } from "../services/Warehouse/Warehouse"
import { compiledProject } from "./compile"
import { BranchExists, InvalidBranchName, ProductionNotDroppable, UnknownBranch } from "./environmentErrors"

const storeFailed = (e: { readonly message: string }) => new RunStoreFailed({ detail: e.message })

/** A branch names schemas (`<schema>__<branch>`): a short lower-case identifier. */
const BRANCH_NAME = /^[a-z_][a-z0-9_]{0,39}$/

export const checkBranchName = (name: string) =>
  BRANCH_NAME.test(name) && name !== PRODUCTION ? Effect.succeed(name) : Effect.fail(new InvalidBranchName({ name }))

const literal = (s: string) => `'${s.replace(/'/g, "''")}'`

/** The branch as the state store holds it, or `unknown-branch`. */
export const findBranch = (name: string) =>
  Effect.gen(function* () {
    yield* checkBranchName(name)
    const store = yield* RunStore
    const rows = yield* store.environments.environments.pipe(Effect.mapError(storeFailed))
    const row = rows.find((r) => r.name === name)
    return row === undefined ? yield* new UnknownBranch({ name }) : row
  })

/** Records a branch's last run (a promote needs one). */
export const markBranchRun = (name: string, runId: string, at: string) =>
  Effect.flatMap(RunStore, (store) => store.environments.markRun(name, runId, at).pipe(Effect.mapError(storeFailed)))

const recordOf = (row: EnvironmentRow, models: number): BranchRecord => ({ ...row, models })

/** `pcli branch create <name> [--from prod|<branch>]`: records the branch; nothing is built until it runs. */
export const branchCreate = (input: { readonly name: string; readonly from: string }) =>
  Effect.gen(function* () {
    yield* checkBranchName(input.name)
    const store = yield* RunStore
    const rows = yield* store.environments.environments.pipe(Effect.mapError(storeFailed))
    if (rows.some((r) => r.name === input.name)) return yield* new BranchExists({ name: input.name })
    if (input.from !== PRODUCTION && !rows.some((r) => r.name === input.from)) return yield* new UnknownBranch({ name: input.from })
    const row: EnvironmentRow = {
      name: input.name,
      base: input.from,
      created_at: new Date(yield* Clock.currentTimeMillis).toISOString(),
      last_run_id: null,
      last_run_at: null
    }
    yield* store.environments.createEnvironment(row).pipe(Effect.mapError(storeFailed))
    const out: BranchOutput = { command: "branch_create", branch: recordOf(row, 0) }
    return out
  })

/** `pcli branch list`. */
export const branchList = Effect.gen(function* () {
  const store = yield* RunStore
  const rows = yield* store.environments.environments.pipe(Effect.mapError(storeFailed))
  const branches = yield* Effect.forEach(rows, (row) =>
    Effect.map(store.environments.modelsOf(row.name).pipe(Effect.mapError(storeFailed)), (models) => recordOf(row, models.size))
  )
  const out: BranchListOutput = { command: "branch_list", branches }
  return out
})

/** The branch's views: every view in a `<schema>__<branch>` schema. */
const branchViews = (name: string) =>
  Effect.flatMap(Warehouse, (wh) =>
    wh.execute(`SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'VIEW' AND table_schema LIKE ${literal(`%\\_\\_${name}`)} ESCAPE '\\'`).pipe(
      Effect.map((r) => r.rows.map((row) => ({ schema: String(row[0]), table: String(row[1]) })).filter((v) => v.schema.endsWith(`__${name}`)))
    )
  )

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`

/** `pcli branch drop <name>`: its views go, its rows go; its physical tables are left to gc. */
export const branchDrop = (name: string) =>
  Effect.gen(function* () {
    if (name === PRODUCTION) return yield* new ProductionNotDroppable()
    const row = yield* findBranch(name)
    const store = yield* RunStore
    const models = yield* store.environments.modelsOf(name).pipe(Effect.mapError(storeFailed))
    const wh = yield* Warehouse
    const views = yield* branchViews(name).pipe(Effect.mapError(storeFailed))
    for (const v of views) yield* wh.execute(`DROP VIEW IF EXISTS ${quote(v.schema)}.${quote(v.table)}`).pipe(Effect.mapError(storeFailed))
    for (const schema of new Set(views.map((v) => v.schema))) yield* Effect.ignore(wh.execute(`DROP SCHEMA IF EXISTS ${quote(schema)}`))
    yield* store.environments.dropEnvironment(name).pipe(Effect.mapError(storeFailed))
    const out: BranchOutput = { command: "branch_drop", branch: recordOf(row, models.size) }
    return out
  })

const tablePart = (physical: string) => physical.slice(physical.indexOf(".") + 1)

/** `pcli branch diff <name>`: per model, changed or reused, column differences and row counts on both sides. */
export const branchDiff = (name: string) =>
  Effect.gen(function* () {
    const branch = yield* findBranch(name)
    const store = yield* RunStore
    const project = yield* compiledProject
    const mine = yield* store.environments.modelsOf(name).pipe(Effect.mapError(storeFailed))
    const base = yield* store.environments.modelsOf(branch.base).pipe(Effect.mapError(storeFailed))
    const wh = yield* Warehouse
    const physicals = [...new Set([...mine.values(), ...base.values()].map((r) => tablePart(r.physical)))]
    const columns = new Map<string, Map<string, string>>()
    if (physicals.length > 0) {
      const found = yield* wh
        .execute(`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = ${literal(PHYSICAL_SCHEMA)} ORDER BY table_name, ordinal_position`)
        .pipe(Effect.mapError(storeFailed))
      for (const [t, c, type] of found.rows) {
        const of = columns.get(String(t)) ?? new Map<string, string>()
        of.set(String(c), String(type))
        columns.set(String(t), of)
      }
    }
    const rowsOf = (physical: string | undefined) =>
      physical === undefined || !columns.has(tablePart(physical))
        ? Effect.succeed(null)
        : wh.execute(`SELECT count(*) FROM ${quote(PHYSICAL_SCHEMA)}.${quote(tablePart(physical))}`).pipe(
            Effect.map((r) => Number(r.rows[0]?.[0] ?? 0)),
            Effect.mapError(storeFailed)
          )
    const models = yield* Effect.forEach(project.order, (model) =>
      Effect.gen(function* () {
        const b = mine.get(model)
        const p = base.get(model)
        const baseColumns = p === undefined ? new Map<string, string>() : (columns.get(tablePart(p.physical)) ?? new Map<string, string>())
        const branchColumns = b === undefined ? new Map<string, string>() : (columns.get(tablePart(b.physical)) ?? new Map<string, string>())
        const differences = b === undefined || p === undefined
          ? []
          : [...new Set([...baseColumns.keys(), ...branchColumns.keys()])]
              .filter((c) => baseColumns.get(c) !== branchColumns.get(c))
              .map((c) => ({ column: c, base: baseColumns.get(c) ?? null, branch: branchColumns.get(c) ?? null }))
        const difference: ModelDifference = {
          model,
          status: b === undefined ? "not-built" : b.physical === p?.physical ? "reused" : "changed",
          base_table: p?.physical ?? null,
          branch_table: b?.physical ?? null,
          schema_differences: differences,
          base_rows: yield* rowsOf(p?.physical),
          branch_rows: yield* rowsOf(b?.physical)
        }
        return difference
      })
    )
    const out: BranchDiffOutput = { command: "branch_diff", branch: name, base: branch.base, models }
    return out
  })
