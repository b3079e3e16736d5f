// `--select`: the parser against its own printer, and the evaluator against a plain reference
// (all-pairs shortest paths, then set arithmetic) over random DAGs.
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type Atom, evaluateSelection, formatSelection, parseSelection, type SelectableGraph, type Selection, type Term } from "../../src/services/Project/select"

interface Dag {
  readonly n: number
  /** edges[i] lists the models that read model i (always a higher index: acyclic). */
  readonly edges: ReadonlyArray<ReadonlyArray<number>>
  readonly layers: ReadonlyArray<"a" | "b">
}

const name = (i: number) => `m${i}`

const dag: fc.Arbitrary<Dag> = fc.integer({ min: 1, max: 9 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.tuple(...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: n - i - 1 }, (_, k) => i + 1 + k)))),
    layers: fc.array(fc.constantFrom("a" as const, "b" as const), { minLength: n, maxLength: n })
  })
)

const graphOf = (d: Dag): SelectableGraph => {
  const up = Array.from({ length: d.n }, () => [] as Array<string>)
  d.edges.forEach((readers, i) => readers.forEach((j) => up[j]!.push(name(i))))
  const index = (m: string) => Number(m.slice(1))
  return {
    names: Array.from({ length: d.n }, (_, i) => name(i)),
    upstream: (m) => up[index(m)]!,
    downstream: (m) => d.edges[index(m)]!.map(name),
    tags: (m) => ({ layer: d.layers[index(m)]! }),
    files: (m) => [`models/${m}.sql`, `models/${m}.toml`]
  }
}

const atom = (n: number): fc.Arbitrary<Atom> =>
  fc.oneof(
    fc.integer({ min: 0, max: n - 1 }).map((i): Atom => ({ _tag: "Model", glob: name(i) })),
    fc.constantFrom("m*", "m1*", "*", "x*").map((glob): Atom => ({ _tag: "Model", glob })),
    fc.record({ key: fc.constantFrom("layer", "owner"), value: fc.constantFrom(undefined, "a", "b") }).map((t): Atom => ({ _tag: "Tag", ...t })),
    fc.oneof(fc.constant("models"), fc.integer({ min: 0, max: n - 1 }).map((i) => `models/${name(i)}.sql`), fc.constant("models/m1*")).map((path): Atom => ({ _tag: "Path", path }))
  )

const reach = fc.option(fc.record({ depth: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) }), { nil: undefined })

const term = (n: number): fc.Arbitrary<Term> =>
  fc.oneof(
    fc.record({ atom: atom(n), ancestors: reach, descendants: reach, at: fc.constant(false) }),
    fc.record({ atom: atom(n), ancestors: fc.constant(undefined), descendants: fc.constant(undefined), at: fc.constant(true) })
  )

const selection = (n: number): fc.Arbitrary<Selection> => fc.array(fc.array(term(n), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 })

/** The reference: shortest path lengths along downstream edges (Floyd–Warshall). */
const distances = (d: Dag) => {
  const dist = Array.from({ length: d.n }, (_, i) => Array.from({ length: d.n }, (_, j) => (i === j ? 0 : Infinity)))
  d.edges.forEach((readers, i) => readers.forEach((j) => (dist[i]![j] = 1)))
  for (let k = 0; k < d.n; k++) for (let i = 0; i < d.n; i++) for (let j = 0; j < d.n; j++) dist[i]![j] = Math.min(dist[i]![j]!, dist[i]![k]! + dist[k]![j]!)
  return dist
}

const referenceAtom = (d: Dag, a: Atom): Set<number> | "missing" => {
  const all = Array.from({ length: d.n }, (_, i) => i)
  switch (a._tag) {
    case "Model":
      if (!a.glob.includes("*")) return all.includes(Number(a.glob.slice(1))) && a.glob === name(Number(a.glob.slice(1))) ? new Set([Number(a.glob.slice(1))]) : "missing"
      return new Set(all.filter((i) => name(i).startsWith(a.glob.slice(0, -1))))
    case "Tag":
      return new Set(a.key !== "layer" ? [] : all.filter((i) => a.value === undefined || d.layers[i] === a.value))
    case "Path":
      if (a.path === "models") return new Set(all)
      if (a.path.endsWith("*")) return new Set(all.filter((i) => `models/${name(i)}.sql`.startsWith(a.path.slice(0, -1))))
      return new Set(all.filter((i) => `models/${name(i)}.sql` === a.path))
  }
}

const reference = (d: Dag, s: Selection): ReadonlyArray<string> | "missing" => {
  const dist = distances(d)
  const within = (depth: number | undefined) => (x: number) => x <= (depth ?? Number.MAX_SAFE_INTEGER) && x !== Infinity
  const all = Array.from({ length: d.n }, (_, i) => i)
  const ancestors = (base: Set<number>, depth: number | undefined) => new Set(all.filter((x) => [...base].some((b) => within(depth)(dist[x]![b]!))))
  const descendants = (base: Set<number>, depth: number | undefined) => new Set(all.filter((x) => [...base].some((b) => within(depth)(dist[b]![x]!))))
  const picked = new Set<number>()
  for (const group of s) {
    let inGroup: Set<number> | undefined
    for (const t of group) {
      const base = referenceAtom(d, t.atom)
      if (base === "missing") return "missing"
      let models = new Set(base)
      if (t.at) {
        const down = descendants(base, undefined)
        models = new Set([...down, ...ancestors(down, undefined)])
      } else {
        if (t.ancestors !== undefined) models = new Set([...models, ...ancestors(base, t.ancestors.depth)])
        if (t.descendants !== undefined) models = new Set([...models, ...descendants(base, t.descendants.depth)])
      }
      inGroup = inGroup === undefined ? models : new Set([...inGroup].filter((x) => models.has(x)))
    }
    for (const x of inGroup ?? []) picked.add(x)
  }
  return all.filter((i) => picked.has(i)).map(name)
}

describe("--select", () => {
  it("parses what it prints: the grammar's printer and parser agree on every selection", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }).chain(selection), (s) => {
        expect(Either.getOrThrow(parseSelection([formatSelection(s)]))).toEqual(s)
      }),
      { numRuns: 500 }
    )
  })

  it("picks what a plain reference picks, over random DAGs, tags and paths", () => {
    fc.assert(
      fc.property(dag.chain((d) => fc.tuple(fc.constant(d), selection(d.n))), ([d, s]) => {
        const got = evaluateSelection(graphOf(d), s)
        const want = reference(d, s)
        if (want === "missing") expect(Either.isLeft(got) && got.left._tag).toBe("SelectedModelNotFound")
        else expect(Either.getOrThrow(got)).toEqual(want)
      }),
      { numRuns: 500 }
    )
  })

  it("refuses what is not in the grammar, naming the selector", () => {
    for (const bad of ["", "  ", "++m", "m++", "+", "@+m", "@m+", "tag:", "tag:=x", "tag:k=", "path:", "color:red", "m;drop", "a,,b"]) {
      const parsed = parseSelection([bad])
      expect(Either.isLeft(parsed), bad).toBe(true)
      if (Either.isLeft(parsed)) expect(parsed.left.code).toBe("selector-invalid")
    }
    // Space unites, comma intersects; repeated --select values unite.
    expect(Either.getOrThrow(parseSelection(["a b,c", "d"])).map((g) => g.length)).toEqual([1, 2, 1])
  })

  it("reads counts on either side of +", () => {
    const [[t]] = Either.getOrThrow(parseSelection(["2+m3+1"])) as unknown as [[Term]]
    expect(t).toEqual({ atom: { _tag: "Model", glob: "m3" }, ancestors: { depth: 2 }, descendants: { depth: 1 }, at: false })
  })
})
