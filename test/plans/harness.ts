import { ProjectContext } from "../../src/services/ProjectConfig/ProjectContext"
import { NodeContext } from "@effect/platform-node"
import { Chunk, Effect, Layer, Option, Stream } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { PolicyBlock } from "../../src/schemas/policy"
import { Environment } from "../../src/services/Environment/Environment"
import { Ledger, type LedgerRow } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import * as Plans from "../../src/services/Plans/layer"
import { policyFreeze } from "../../src/commands/policyFreeze"
import { policyUnfreeze } from "../../src/commands/policyUnfreeze"
import * as PolicyEngine from "../../src/services/PolicyEngine/PolicyEngine"
import { type ActingPrincipal, Principal } from "../../src/services/Principal/Principal"
import * as Compiler from "../../src/services/Project/compile"
import * as Runner from "../../src/services/Runner/run"
import * as RunStore from "../../src/services/Runner/RunStore"
import * as StateStore from "../../src/services/StateStore/StateStore"
import * as Embedded from "../../src/services/Warehouse/embedded"
import { Warehouse } from "../../src/services/Warehouse/Warehouse"

export interface ModelSpec {
  readonly sql: string
  /** Sidecar body after `name = …` and the target (tags, tests, …). */
  readonly extra?: string
  readonly schema?: string
  readonly contract?: string
}

export interface TestProject {
  readonly root: string
  readonly modelsDir: string
  readonly statePath: string
}

export const sidecar = (name: string, spec: ModelSpec) =>
  `name = "${name}"\n${spec.extra ?? ""}\n[target]\ncatalog = "warehouse"\nschema = "${spec.schema ?? "main"}"\ntable = "${name}"\n`

export const writeModel = (p: TestProject, name: string, spec: ModelSpec) => {
  fs.writeFileSync(path.join(p.modelsDir, `${name}.sql`), spec.sql)
  fs.writeFileSync(path.join(p.modelsDir, `${name}.toml`), sidecar(name, spec))
  const contract = path.join(p.modelsDir, `${name}.contract.toml`)
  if (spec.contract !== undefined) fs.writeFileSync(contract, spec.contract)
  else fs.rmSync(contract, { force: true })
}

export const removeModel = (p: TestProject, name: string) => {
  for (const ext of [".sql", ".toml", ".contract.toml"]) fs.rmSync(path.join(p.modelsDir, `${name}${ext}`), { force: true })
}

export const git = (p: TestProject, ...args: Array<string>) =>
  execFileSync("git", args, { cwd: p.root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** A temp project with a git repository (identity configured) and the given models committed. */
export const makeProject = (models: Record<string, ModelSpec> = {}): TestProject => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-plans-"))
  const p = { root, modelsDir: path.join(root, "models"), statePath: path.join(root, "models", ".pcli-state.sqlite") }
  fs.mkdirSync(p.modelsDir)
  for (const [name, spec] of Object.entries(models)) writeModel(p, name, spec)
  fs.writeFileSync(path.join(root, ".gitignore"), ".pcli/\n*.sqlite*\n")
  git(p, "init", "-q", "-b", "main")
  git(p, "config", "user.email", "reviewer@example.com")
  git(p, "config", "user.name", "Rita Reviewer")
  git(p, "config", "commit.gpgsign", "false")
  git(p, "add", "-A")
  git(p, "commit", "-q", "-m", "initial", "--allow-empty")
  return p
}

export const human: ActingPrincipal = { class: "human", id: "alice", source: "flag" }
export const agent: ActingPrincipal = { class: "agent", id: "bot-7", source: "env" }

/** Everything the plan/review/apply use cases need, on real files, SQLite, DuckDB and git. */
export const projectLayer = (p: TestProject, policy: PolicyBlock | undefined) =>
  Layer.mergeAll(
    Plans.layer(p.root),
    Compiler.layer,
    Runner.layer,
    PolicyEngine.layer({ configPresent: true, policy, ledger: { kind: "local", path: p.statePath } }),
    Layer.succeed(Environment, {}),
    // No pcli.toml in these projects: the policy block is given directly.
    Layer.succeed(ProjectContext, { config: Option.none(), root: p.root, modelsDir: path.join(p.root, "models"), state: { path: p.statePath, createParent: false } })
  ).pipe(
    Layer.provideMerge(RunStore.layer),
    Layer.provideMerge(LedgerSqlite.layer),
    Layer.provideMerge(Embedded.layer(path.join(p.root, ".pcli", "warehouse.duckdb"))),
    Layer.provideMerge(StateStore.layer(p.statePath, "write")),
    Layer.provideMerge(NodeContext.layer),
    Layer.orDie
  )

export const as = (principal: ActingPrincipal) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, Principal, principal)

export const ledgerRows = (filter: { readonly planId?: string } = {}) =>
  Effect.flatMap(Ledger, (l) => Stream.runCollect(l.query(filter))).pipe(Effect.map(Chunk.toReadonlyArray), Effect.orDie)

/** Rows appended by `effect`, whatever it returned. */
export const rowsWrittenBy = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const before = (yield* ledgerRows()).length
    const result = yield* Effect.either(effect)
    const rows = (yield* ledgerRows()).slice(before)
    return { result, rows: rows as ReadonlyArray<LedgerRow> }
  })

export const query = (sql: string) => Effect.flatMap(Warehouse, (wh) => wh.execute(sql)).pipe(Effect.map((r) => r.rows))

export const tableExists = (schema: string, table: string) =>
  Effect.map(
    query(`SELECT count(*) FROM information_schema.tables WHERE table_schema = '${schema}' AND table_name = '${table}'`),
    (rows) => Number(rows[0]?.[0]) === 1
  ).pipe(Effect.orDie)

export const freeze = (input: { principal?: string; scope?: string }) =>
  policyFreeze(input, { class: "human", id: "alice", source: "flag" }).pipe(Effect.orDie)
export const unfreeze = (input: { principal?: string; scope?: string }) =>
  policyUnfreeze(input, { class: "human", id: "alice", source: "flag" }).pipe(Effect.orDie)

/** Fails the test with the value when an Either is not the expected side. */
export const left = <A, E>(e: { readonly _tag: "Left" | "Right"; readonly left?: E; readonly right?: A }): E => {
  if (e._tag !== "Left") throw new Error(`expected a failure, got ${JSON.stringify(e.right)}`)
  return e.left as E
}
