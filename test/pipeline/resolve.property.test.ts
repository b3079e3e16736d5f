import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { compileSummaries, depths, findCycle, kahnOrder, type ModelSummary, reachableCountsPlain } from "../../src/services/Project/compile"
import { formatTableRef, type TableRef } from "../../src/services/Project/sql"

// Reference resolution against compileSummaries: a reference names a model when its parts equal the
// trailing parts of the model's `catalog.schema.table`, case-insensitively; several others are
// ambiguous; only itself is an incremental self-reference; none must be a declared source.

const part = fc.constantFrom("a", "A", "b", "main", "Main")
const model = fc.record({ catalog: fc.constantFrom("warehouse", "WAREHOUSE", "other"), schema: part, table: part })
const ref: fc.Arbitrary<TableRef> = fc.record({
  catalog: fc.option(fc.constantFrom("warehouse", "Warehouse", "other", "x"), { nil: undefined }),
  schema: fc.option(part, { nil: undefined }),
  table: part
})

const eq = (a: string | undefined, b: string | undefined) => a === undefined || b === undefined || a.toLowerCase() === b.toLowerCase()
const names = (t: { catalog?: string | undefined; schema: string; table: string }, r: TableRef) =>
  r.table.toLowerCase() === t.table.toLowerCase() && eq(r.schema, t.schema) && eq(r.catalog, t.catalog)

/** The plain rule: the first failing model's error, else each model's upstream and source references. */
const plainResolve = (summaries: ReadonlyArray<ModelSummary>, refs: ReadonlyMap<string, ReadonlyArray<TableRef>>) => {
  const upstream = new Map<string, Array<string>>()
  const sources = new Map<string, Array<string>>()
  for (const s of [...summaries].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const deps = new Set<string>()
    const found: Array<string> = []
    for (const r of refs.get(s.name) ?? []) {
      const matches = summaries.filter((m) => names(m.target, r))
      const others = matches.filter((m) => m.name !== s.name)
      if (others.length > 1) return { error: { _tag: "AmbiguousReference", model: s.name, reference: formatTableRef(r), candidates: others.map((m) => m.name).sort() } }
      if (others.length === 1) deps.add(others[0]!.name)
      else if (matches.length === 0) {
        if (!s.sources.some((src) => names(src, r))) return { error: { _tag: "UnknownReference", model: s.name, reference: formatTableRef(r), via: "sql" } }
        found.push(formatTableRef(r))
      }
    }
    upstream.set(s.name, [...deps].sort())
    sources.set(s.name, found)
  }
  return { upstream, sources }
}

describe("reference resolution", () => {
  it("resolves as the plain rule: upstreams, sources, ambiguity and self-references", () => {
    fc.assert(
      fc.property(
        // Unique by physical relation (schema.table): two models on one relation are `duplicate-target`.
        fc.uniqueArray(model, { minLength: 1, maxLength: 6, selector: (t) => `${t.schema}.${t.table}`.toLowerCase() }),
        fc.array(fc.array(ref, { maxLength: 3 }), { minLength: 6, maxLength: 6 }),
        fc.array(fc.array(fc.record({ schema: part, table: part }), { maxLength: 2 }), { minLength: 6, maxLength: 6 }),
        (targets, refLists, sourceLists) => {
          const summaries: Array<ModelSummary> = targets.map((target, i) => ({
            name: `m${i}`,
            target,
            strategy: { type: "full_refresh" },
            dependsOn: [],
            sources: sourceLists[i]!,
            layer: undefined,
            contracted: false,
            classification: {}
          }))
          const refs = new Map(summaries.map((s, i) => [s.name, refLists[i]!]))
          const expected = plainResolve(summaries, refs)
          const got = Effect.runSync(
            Effect.either(compileSummaries(summaries.map((summary) => ({ summary, definition: summary })), Effect.succeed(refs)))
          )
          if ("error" in expected) {
            // A cycle can only come after resolution succeeded; the plain rule stops at the first failing model.
            expect(Either.isLeft(got)).toBe(true)
            if (Either.isLeft(got)) expect(got.left).toMatchObject(expected.error!)
            return
          }
          if (Either.isLeft(got)) {
            expect(got.left._tag).toBe("DependencyCycle")
            return
          }
          for (const s of summaries) {
            expect(got.right.models.get(s.name)!.upstream).toEqual(expected.upstream.get(s.name))
            expect(got.right.models.get(s.name)!.sourceRefs).toEqual(expected.sources.get(s.name))
          }
        }
      ),
      { numRuns: 1500 }
    )
  })
})

/** The plain graph of resolved upstreams: Kahn order, layers, downstream lists (in first-met order), depths and closure sizes, or the cycle. */
const plainGraph = (names: ReadonlyArray<string>, upstream: ReadonlyMap<string, ReadonlyArray<string>>) => {
  const downstream = new Map<string, Array<string>>()
  for (const name of names) for (const dep of upstream.get(name)!) downstream.set(dep, [...(downstream.get(dep) ?? []), name])
  const { order, blocked } = kahnOrder(names, upstream, downstream)
  if (blocked.length > 0) return { cycle: findCycle(blocked, upstream) } as const
  const depth = depths(order, upstream)
  const layers: Array<Array<string>> = []
  for (const name of names) (layers[depth.get(name)!] ??= []).push(name)
  return { cycle: undefined, order, layers, downstream, depth, reachable: reachableCountsPlain(order, downstream) }
}

describe("ordering", () => {
  it("orders, layers and counts downstreams as the plain graph functions do, and reports their cycle", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 14 }).chain((n) =>
          fc.tuple(fc.shuffledSubarray(Array.from({ length: n }, (_, i) => `m${String.fromCharCode(97 + ((i * 7) % 26))}${i}`), { minLength: n, maxLength: n }), fc.array(fc.array(fc.nat({ max: n - 1 }), { maxLength: 4 }), { minLength: n, maxLength: n }))
        ),
        fc.boolean(),
        ([listed, deps], acyclic) => {
          const summaries: Array<ModelSummary> = listed.map((name, i) => ({
            name,
            target: { catalog: "warehouse", schema: "main", table: name },
            strategy: { type: "full_refresh" },
            // Acyclic: a model depends only on models listed before it (and itself, which resolution drops).
            dependsOn: deps[i]!.filter((d) => !acyclic || d <= i).map((d) => listed[d]!),
            sources: [],
            layer: undefined,
            contracted: false,
            classification: {}
          }))
          const names = [...listed].sort()
          const upstream = new Map(summaries.map((s) => [s.name, [...new Set(s.dependsOn)].filter((d) => d !== s.name).sort()]))
          const expected = plainGraph(names, upstream)
          const got = Effect.runSync(Effect.either(compileSummaries(summaries.map((summary) => ({ summary, definition: summary })), Effect.succeed(new Map()))))
          if (expected.cycle !== undefined) {
            expect(Either.isLeft(got)).toBe(true)
            if (Either.isLeft(got)) expect(got.left).toMatchObject({ _tag: "DependencyCycle", model: expected.cycle[0], cycle: expected.cycle })
            return
          }
          if (acyclic) expect(Either.isRight(got)).toBe(true)
          if (Either.isLeft(got)) throw got.left
          const project = got.right
          expect(project.order).toEqual(expected.order)
          expect(project.layers).toEqual(expected.layers)
          expect([...project.downstream]).toEqual([...expected.downstream])
          for (const name of names) {
            const m = project.models.get(name)!
            expect(m.upstream).toEqual(upstream.get(name))
            expect(m.depth).toBe(expected.depth.get(name))
            expect(m.downstreams).toBe(expected.downstream.get(name)?.length ?? 0)
            expect(m.reachableDownstreams).toBe(expected.reachable.get(name))
          }
          expect([...project.models.keys()]).toEqual(expected.order)
        }
      ),
      { numRuns: 1000 }
    )
  })
})
