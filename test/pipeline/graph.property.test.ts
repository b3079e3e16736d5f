import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import * as NodePath from "node:path"
import { joinInDir } from "../../src/services/Project/models"
import { kahnOrder, reachableCounts, reachableCountsPlain } from "../../src/services/Project/graph"

/** A random DAG: node i may read any earlier node (so the order of creation is topological). */
const dag = fc.integer({ min: 0, max: 120 }).chain((n) =>
  fc
    .array(fc.tuple(fc.nat(), fc.nat()), { maxLength: n * 3 })
    .map((edges) => {
      const names = Array.from({ length: n }, (_, i) => `n${String(i).padStart(3, "0")}`)
      const upstream = new Map<string, Array<string>>(names.map((m) => [m, []]))
      const downstream = new Map<string, Array<string>>()
      for (const [a, b] of edges) {
        if (n < 2) break
        const child = 1 + (a % (n - 1))
        const parent = b % child
        const list = upstream.get(names[child]!)!
        if (list.includes(names[parent]!)) continue
        list.push(names[parent]!)
        const down = downstream.get(names[parent]!) ?? []
        down.push(names[child]!)
        downstream.set(names[parent]!, down)
      }
      for (const list of downstream.values()) list.sort()
      return { names, upstream, downstream }
    })
)

describe("graph", () => {
  it("reachableCounts equals the plain closure walk on random DAGs", () => {
    fc.assert(
      fc.property(dag, ({ names, upstream, downstream }) => {
        const { order } = kahnOrder(names, upstream, downstream)
        expect(order.length).toBe(names.length)
        expect(reachableCounts(order, downstream)).toEqual(reachableCountsPlain(order, downstream))
      }),
      { numRuns: 300 }
    )
  })
})

describe("joinInDir", () => {
  const segment = fc.constantFrom("models", ".", "..", "", "a b", "x.sql", "é", "deep")
  const dir = fc.tuple(fc.boolean(), fc.array(segment, { maxLength: 5 }), fc.boolean()).map(
    ([absolute, parts, trailing]) => `${absolute ? "/" : ""}${parts.join("/")}${trailing ? "/" : ""}`
  )
  const file = fc
    .stringMatching(/^[A-Za-z0-9_.é -]{1,12}$/)
    .filter((f) => f !== "." && f !== "..")
    .map((f) => `${f}.sql`)
  it("equals path.join for every directory spelling and plain file name", () => {
    fc.assert(
      fc.property(dir, file, (d, f) => {
        expect(joinInDir(NodePath, d)(f)).toBe(NodePath.join(d, f))
      }),
      { numRuns: 2000 }
    )
  })
})
