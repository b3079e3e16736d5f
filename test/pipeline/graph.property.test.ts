import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import * as NodePath from "node:path"
import { joinInDir } from "../../src/services/Project/models"
import { depths, depthsIndexed, kahnOrder, kahnOrderIndexed, reachableCountsIndexed, reachableCountsPlain } from "../../src/services/Project/compile"

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

/** Any directed graph on names in sorted order (cycles and self-less), as the plain and the numbered functions take it. */
const graph = fc.integer({ min: 0, max: 80 }).chain((n) =>
  fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: n * 3 }).map((edges) => {
    const names = Array.from({ length: n }, (_, i) => `n${String(i).padStart(3, "0")}`)
    const up: Array<Array<number>> = names.map(() => [])
    for (const [a, b] of edges) {
      if (n < 2) break
      const child = a % n
      const parent = b % n
      if (parent !== child && !up[child]!.includes(parent)) up[child]!.push(parent)
    }
    for (const list of up) list.sort((x, y) => x - y)
    return { names, up }
  })
)

const numbered = (names: ReadonlyArray<string>, up: ReadonlyArray<ReadonlyArray<number>>) => {
  const down: Array<Array<number>> = names.map(() => [])
  up.forEach((list, child) => list.forEach((parent) => down[parent]!.push(child)))
  const upstream = new Map(names.map((name, i) => [name, up[i]!.map((m) => names[m]!)]))
  const downstream = new Map(names.flatMap((name, i) => (down[i]!.length === 0 ? [] : [[name, down[i]!.map((m) => names[m]!)] as const])))
  return { down, upstream, downstream }
}

describe("graph", () => {
  it("reachableCountsIndexed and depthsIndexed equal the plain walks on random DAGs", () => {
    fc.assert(
      fc.property(dag, ({ names, upstream, downstream }) => {
        const { order } = kahnOrder(names, upstream, downstream)
        expect(order.length).toBe(names.length)
        const number = new Map(names.map((name, i) => [name, i]))
        const up = names.map((name) => (upstream.get(name) ?? []).map((m) => number.get(m)!).sort((a, b) => a - b))
        const down = names.map((name) => (downstream.get(name) ?? []).map((m) => number.get(m)!))
        const indexed = kahnOrderIndexed(up, down)
        expect([...indexed.order].map((i) => names[i])).toEqual(order)
        const counts = reachableCountsIndexed(indexed.order, down)
        const plainCounts = reachableCountsPlain(order, downstream)
        expect(new Map(names.map((name, i) => [name, counts[i]]))).toEqual(plainCounts)
        const depth = depthsIndexed(indexed.order, up)
        expect(new Map(names.map((name, i) => [name, depth[i]]))).toEqual(depths(order, upstream))
      }),
      { numRuns: 300 }
    )
  })

  it("kahnOrderIndexed places and blocks what kahnOrder does, on any directed graph", () => {
    fc.assert(
      fc.property(graph, ({ names, up }) => {
        const { down, upstream, downstream } = numbered(names, up)
        const plain = kahnOrder(names, upstream, downstream)
        const indexed = kahnOrderIndexed(up, down)
        expect([...indexed.order].map((i) => names[i])).toEqual(plain.order)
        expect(indexed.blocked.map((i) => names[i])).toEqual(plain.blocked)
      }),
      { numRuns: 500 }
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
