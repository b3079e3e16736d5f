import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { encodeJson } from "../../src/render/json"
import { CompileOutput } from "../../src/schemas/pipeline"
import { type CompiledProject, compileModels, compileRendered, graphFromIndex } from "../../src/services/Project/compile"
import { loadModels } from "../../src/services/Project/models"
import { compileOutput } from "../../src/services/Runner/output"

const names = ["m0", "m1", "m2", "m3", "m4", "m5"] as const

/** One model's files as generated: what it reads, declares and is tagged with. */
interface ModelSpec {
  readonly present: boolean
  readonly reads: ReadonlyArray<number>
  readonly readsSource: boolean
  readonly declaresSource: boolean
  readonly dependsOn: ReadonlyArray<number>
  readonly layer: string | undefined
  readonly contract: boolean
  readonly comment: number
  readonly broken: boolean
  /** The `email` column's classification tag, if any (`internal` is masked, `pii` is W004). */
  readonly classified: string | undefined
}

/** Models read earlier slots only (so most states compile); edits may add a cycle, an unknown name or a broken file. */
const initial = (seed: number): Array<ModelSpec> =>
  names.map((_, i) => ({
    present: true,
    reads: i === 0 ? [] : [(seed + i) % i],
    readsSource: i === 0,
    declaresSource: i === 0,
    dependsOn: [],
    layer: i % 2 === 0 ? "staging" : undefined,
    contract: i % 3 === 0,
    comment: 0,
    broken: false,
    classified: i === 1 ? "pii" : undefined
  }))

const editKinds = ["reads", "comment", "layer", "contract", "present", "broken", "cycle", "source", "dependsOn", "classification"] as const
const edit = fc.record({ slot: fc.integer({ min: 0, max: names.length - 1 }), kind: fc.constantFrom(...editKinds), n: fc.nat({ max: 63 }) })

const apply = (models: ReadonlyArray<ModelSpec>, e: { readonly slot: number; readonly kind: (typeof editKinds)[number]; readonly n: number }) =>
  models.map((spec, i): ModelSpec => {
    if (i !== e.slot) return spec
    switch (e.kind) {
      case "reads":
        return { ...spec, reads: names.map((_, j) => j).filter((j) => j < i && (e.n >> j) % 2 === 1) }
      case "comment":
        return { ...spec, comment: (spec.comment + 1) % 4 }
      case "layer":
        return { ...spec, layer: [undefined, "staging", "mart"][e.n % 3] }
      case "contract":
        return { ...spec, contract: !spec.contract }
      case "present":
        return { ...spec, present: !spec.present }
      case "broken":
        return { ...spec, broken: !spec.broken }
      case "cycle":
        return { ...spec, reads: [...spec.reads, e.n % names.length] }
      case "source":
        return e.n % 2 === 0 ? { ...spec, readsSource: !spec.readsSource } : { ...spec, declaresSource: !spec.declaresSource }
      case "dependsOn":
        return { ...spec, dependsOn: spec.dependsOn.length > 0 ? [] : [e.n % names.length] }
      case "classification":
        return { ...spec, classified: [undefined, "pii", "internal"][e.n % 3] }
    }
  })

const sqlOf = (spec: ModelSpec, self: number) => {
  const tables = spec.reads.filter((r) => r !== self).map((r) => `s.${names[r]}`)
  if (spec.readsSource) tables.push("ext.events")
  const from = tables.length === 0 ? "" : ` FROM ${tables.map((t, k) => (k === 0 ? t : `JOIN ${t} USING (id)`)).join(" ")}`
  return `SELECT 1 AS id${from}${spec.comment > 0 ? `\n-- note ${spec.comment}` : ""}`
}

const sidecarOf = (spec: ModelSpec, self: number) =>
  spec.broken
    ? `name = "${names[self]}"\n[target\n`
    : `name = "${names[self]}"\n` +
      (spec.dependsOn.length > 0 ? `depends_on = [${spec.dependsOn.map((d) => `"${names[d]}"`).join(", ")}]\n` : "") +
      `[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${names[self]}"\n` +
      (spec.layer === undefined ? "" : `[tags]\nlayer = "${spec.layer}"\n`) +
      (spec.declaresSource ? `[[sources]]\nschema = "ext"\ntable = "events"\n` : "") +
      (spec.classified === undefined ? "" : `[classification]\nemail = "${spec.classified}"\n`)

const contractText = `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n`

const render = (project: CompiledProject<unknown>) => encodeJson(CompileOutput, compileOutput(project, "models", { mask: { internal: "none" }, classifications: undefined }))

/** What a reader of the graph sees: the models, their order and layers, each one's downstreams and how many it reaches. */
const graphShape = (project: CompiledProject<unknown>) => ({
  models: [...project.models.keys()].sort(),
  order: project.order,
  layers: project.layers,
  downstream: [...project.downstream.entries()].sort(),
  reach: [...project.models.entries()].map(([name, m]) => [name, m.reachableDownstreams]).sort()
})

/** The reference: every file read and decoded, no cache of any kind. */
const plain = (modelsDir: string) =>
  Effect.flatMap(loadModels({ modelsDir, env: {} }), (definitions) => Effect.flatMap(compileModels(definitions), render))

const outcome = <E>(effect: Effect.Effect<string | Uint8Array, E, NodeContext.NodeContext>) =>
  Effect.map(Effect.either(effect), (result) =>
    Either.isRight(result)
      ? { text: typeof result.right === "string" ? result.right : new TextDecoder().decode(result.right) }
      : { error: JSON.stringify(result.left) }
  )

describe("pcli compile through the compile index", () => {
  it.effect("prints exactly what the plain compile prints (or fails as it fails) after any sequence of edits", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 10 }), async (seed, edits) => {
          const states: Array<ReadonlyArray<ModelSpec>> = [initial(seed)]
          for (const e of edits) states.push(apply(states[states.length - 1]!, e))
          const root = mkdtempSync(join(tmpdir(), "pcli-index-prop-"))
          const modelsDir = join(root, "models")
          mkdirSync(modelsDir)
          // File times are set by hand, each write later than the last: an edit is always visible by its stat,
          // so every stat can be trusted at once (no racy margin) and the index's unchanged paths are taken.
          let clock = Date.now() / 1000 - 10_000
          const stamp = (path: string) => utimesSync(path, (clock += 1), clock)
          const put = (path: string, text: string | undefined, before: string | undefined) => {
            if (text === before) return
            if (text === undefined) rmSync(path, { force: true })
            else {
              writeFileSync(path, text)
              stamp(path)
            }
          }
          let previous: Array<Record<string, string | undefined>> = names.map(() => ({}))
          try {
            for (const models of states) {
              const files = models.map((spec, i) =>
                !spec.present
                  ? { sql: undefined, toml: undefined, contract: undefined }
                  : { sql: sqlOf(spec, i), toml: sidecarOf(spec, i), contract: spec.contract ? contractText : undefined }
              )
              files.forEach((f, i) => {
                const base = join(modelsDir, names[i]!)
                put(`${base}.sql`, f.sql, previous[i]!["sql"])
                put(`${base}.toml`, f.toml, previous[i]!["toml"])
                put(`${base}.contract.toml`, f.contract, previous[i]!["contract"])
              })
              previous = files
              stamp(modelsDir)
              const expected = await plainOutcome(modelsDir)
              const options = { modelsDir, env: {}, racyMarginMs: -3_600_000 }
              // Twice: the first may rebuild the index, the second reads it.
              for (let k = 0; k < 2; k++) {
                const got = await Effect.runPromise(outcome(compileRendered(options, "models", render)).pipe(Effect.provide(NodeContext.layer)))
                expect(got).toEqual(expected)
              }
              // The graph `audit --for` and `review --queue` read from the index: the plain compile's, or none when it fails.
              const graph = await Effect.runPromise(graphFromIndex(options).pipe(Effect.provide(NodeContext.layer)))
              const reference = await Effect.runPromise(Effect.either(Effect.flatMap(loadModels({ modelsDir, env: {} }), compileModels)).pipe(Effect.provide(NodeContext.layer)))
              if (Either.isLeft(reference)) expect(graph).toBeUndefined()
              else {
                expect(graph).toBeDefined()
                expect(graphShape(graph!)).toEqual(graphShape(reference.right))
              }
            }
          } finally {
            rmSync(root, { recursive: true, force: true })
          }
        }),
        { numRuns: 30 }
      )
    )
  )
})

const plainOutcome = (modelsDir: string) => Effect.runPromise(outcome(plain(modelsDir)).pipe(Effect.provide(NodeContext.layer)))
