import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, TestContext } from "effect"
import fc from "fast-check"
import * as fs from "node:fs"
import type { CompiledProject } from "../../src/services/Project/compile"
import { fingerprintOf, relationKey } from "../../src/services/Runner/incremental"
import { type ProgressEvent, runProject, runProjectModelByModel } from "../../src/services/Runner/run"
import type { RunOptions } from "../../src/services/Runner/runOptions"
import { type BuildState, RunStore, type RunStoreService, type StateChanges } from "../../src/services/Runner/RunStore"
import type { EnvironmentModel } from "../../src/services/Runner/environmentRows"
import { environmentFingerprints, freshPhysical, tableKeyOf } from "../../src/services/Runner/virtual"
import { StatementFailed, Warehouse } from "../../src/services/Warehouse/Warehouse"
import { target, writeProject } from "./fixtures"
import { compileRoot } from "./harness"

const strategies = [
  "",
  '[strategy]\ntype = "time_interval"\ntime_column = "day"\ngranularity = "day"\n',
  '[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n',
  '[strategy]\ntype = "incremental"\ntimestamp_column = "ts"\n'
]

/** What may differ from a run that reuses everything: nothing, or one thing that must send the run through the loop. */
type Twist = "none" | "fingerprint" | "no-state" | "input" | "table-dropped" | "catalog-unknown" | "stop" | "full-refresh"

const scenario = fc.record({
  n: fc.integer({ min: 1, max: 9 }),
  edges: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 16 }),
  strategy: fc.array(fc.nat({ max: strategies.length - 1 }), { minLength: 9, maxLength: 9 }),
  versions: fc.array(fc.constantFrom("run:a", "run:b", "blake3:c"), { minLength: 9, maxLength: 9 }),
  selection: fc.option(fc.array(fc.nat({ max: 8 }), { minLength: 1, maxLength: 4 }), { nil: undefined }),
  concurrency: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  twist: fc.constantFrom<Twist>("none", "none", "none", "fingerprint", "no-state", "input", "table-dropped", "catalog-unknown", "stop", "full-refresh"),
  victim: fc.nat({ max: 8 }),
  /** With the "stop" twist: how many polls of `stopRequested` answer no before the stop (0: asked before the run). */
  stopAfter: fc.nat({ max: 10 })
})

type Scenario = typeof scenario extends fc.Arbitrary<infer A> ? A : never

const projectOf = (s: Scenario) => {
  const names = Array.from({ length: s.n }, (_, i) => `m${i}`)
  const upstream = names.map(() => new Set<string>())
  for (const [a, b] of s.edges) {
    if (s.n < 2) break
    const child = 1 + (a % (s.n - 1))
    upstream[child]!.add(names[b % child]!)
  }
  return writeProject(
    Object.fromEntries(
      names.map((name, i) => {
        const from = [...upstream[i]!]
        const sql = from.length === 0 ? "SELECT 1 AS x, DATE '2024-01-01' AS day, now() AS ts" : `SELECT * FROM ${from.map((u) => `main.${u}`).join(", ")}`
        return [name, { sql, toml: target("main", name) + strategies[s.strategy[i]!]! }]
      })
    )
  )
}

/** The state a previous run left: every model built, with its upstreams' current versions as inputs, unless twisted. */
const statesOf = (project: CompiledProject, s: Scenario, victim: string) => {
  const names = [...project.models.keys()]
  const version = (name: string) => s.versions[names.indexOf(name)]!
  const states = new Map<string, BuildState>()
  for (const [name, model] of project.models) {
    if (s.twist === "no-state" && name === victim) continue
    const inputs: Record<string, string> = Object.fromEntries(model.upstream.map((u) => [u, version(u)]))
    if (s.twist === "input" && name === victim) inputs["m0"] = "run:other"
    states.set(name, {
      model_name: name,
      fingerprint: s.twist === "fingerprint" && name === victim ? "stale" : fingerprintOf(model),
      data_version: version(name),
      inputs,
      run_id: "run-before",
      output_hash: model.strategy.type === "content_addressed" ? `hash-${name}` : null,
      output_path: model.strategy.type === "content_addressed" ? `/artifacts/${name}` : null,
      sql_hash: `sql-${name}`,
      recipe_hash: `recipe-${name}`,
      built_at: "2024-01-01T00:00:00.000Z"
    })
  }
  const tables = new Set([...project.models.values()].filter((m) => !(s.twist === "table-dropped" && m.name === victim)).map(relationKey))
  return { states, tables: s.twist === "catalog-unknown" ? undefined : tables }
}

/** Every model's production view on its table under its environment fingerprint. */
const settledEnvironment = (project: CompiledProject): ReadonlyMap<string, EnvironmentModel> => {
  const fingerprints = environmentFingerprints(project)
  return new Map([...project.models.values()].map((m) => {
    const fingerprint = fingerprints.get(m.name)!
    return [m.name, { model_name: m.name, physical: freshPhysical(m, fingerprint), fingerprint, table_key: tableKeyOf(m), updated_at: "" }]
  }))
}

/** A warehouse that knows its tables and refuses every statement; a store that records what it is given. */
const run = (
  impl: typeof runProject,
  project: CompiledProject,
  options: RunOptions,
  states: ReadonlyMap<string, BuildState>,
  tables: ReadonlySet<string> | undefined
) => {
  const recorded: Array<{ run: unknown; changes: StateChanges | undefined }> = []
  const events: Array<ProgressEvent> = []
  const store = {
    buildStates: Effect.succeed(states),
    intervalsOf: () => Effect.succeed([]),
    recordRun: (r, _plan, changes) => Effect.sync(() => void recorded.push({ run: r, changes })),
    // Production's views already point at each model's table under its fingerprint (decision 37).
    environments: { modelsOf: () => Effect.succeed(settledEnvironment(project)) } as Partial<RunStoreService["environments"]> as RunStoreService["environments"]
  } as Partial<RunStoreService> as RunStoreService
  const warehouse = Layer.succeed(Warehouse, {
    kind: "embedded",
    execute: () => Effect.fail(new StatementFailed({ detail: "no warehouse here", transient: false })),
    knownRelations: Effect.succeed(tables)
  })
  return impl(project, { ...options, onProgress: (e) => Effect.sync(() => void events.push(e)) }).pipe(
    Effect.provide(Layer.mergeAll(warehouse, Layer.succeed(RunStore, store), NodeContext.layer)),
    Effect.provide(TestContext.TestContext),
    Effect.map((record) => ({ record, recorded, events }))
  )
}

describe("a run that reuses every model", () => {
  it("records and reports exactly what the per-model loop does, for random projects, selections and twists", async () => {
    let direct = 0
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const root = projectOf(s)
        try {
          const project = await Effect.runPromise(compileRoot(root))
          const names = [...project.models.keys()]
          const selected = s.selection === undefined ? names : [...new Set(s.selection.map((i) => names[i % names.length]!))]
          const { states, tables } = statesOf(project, s, selected[s.victim % selected.length]!)
          const options: RunOptions = {
            projectRoot: root,
            runId: "run-now",
            reuse: s.twist !== "full-refresh",
            ...(s.selection === undefined ? {} : { models: selected }),
            ...(s.concurrency === undefined ? {} : { concurrency: s.concurrency }),
          }
          // Each implementation gets its own stop that turns on after the same number of polls.
          const stopAfter = (n: number): Partial<RunOptions> => {
            let polls = 0
            return s.twist === "stop" ? { stopRequested: Effect.sync(() => ++polls > n) } : {}
          }
          const fast = await Effect.runPromise(run(runProject, project, { ...options, ...stopAfter(s.stopAfter) }, states, tables))
          const reference = await Effect.runPromise(run(runProjectModelByModel, project, { ...options, ...stopAfter(s.stopAfter) }, states, tables))
          expect(fast).toEqual(reference)
          // A warehouse that cannot list its tables skips the dropped-table check: everything is reused, through the loop.
          if (s.twist === "none" || s.twist === "catalog-unknown") {
            expect(fast.record.models.every((m) => m.status === "unchanged")).toBe(true)
            if (s.twist === "none") direct++
          } else if (s.twist !== "stop" || s.stopAfter < selected.length) {
            expect(fast.record.models.some((m) => m.status !== "unchanged")).toBe(true)
          }
        } finally {
          fs.rmSync(root, { recursive: true, force: true })
        }
      }),
      { numRuns: 80 }
    )
    expect(direct).toBeGreaterThan(0)
  }, 120_000)
})
