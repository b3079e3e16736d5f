/**
 * Graph algorithms over model names: deterministic Kahn order, depth layers, cycle extraction.
 * The compile runs their numbered versions (graphIndexed.ts); these are the references.
 */

/** Binary min-heap of strings (alphabetical ready set for Kahn). */
class MinHeap {
  private readonly items: Array<string> = []
  get size() {
    return this.items.length
  }
  push(value: string) {
    const a = this.items
    a.push(value)
    let i = a.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (a[parent]! <= a[i]!) break
      ;[a[parent], a[i]] = [a[i]!, a[parent]!]
      i = parent
    }
  }
  pop(): string | undefined {
    const a = this.items
    const top = a[0]
    const last = a.pop()
    if (a.length > 0 && last !== undefined) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < a.length && a[l]! < a[m]!) m = l
        if (r < a.length && a[r]! < a[m]!) m = r
        if (m === i) break
        ;[a[m], a[i]] = [a[i]!, a[m]!]
        i = m
      }
    }
    return top
  }
}

export interface TopoResult {
  /** Kahn order, alphabetical among ready nodes. */
  readonly order: ReadonlyArray<string>
  /** Nodes left over because they sit on or behind a cycle. */
  readonly blocked: ReadonlyArray<string>
}

/** `upstream.get(n)` = the nodes n depends on; `downstream` is its reverse. */
export const kahnOrder = (
  nodes: ReadonlyArray<string>,
  upstream: ReadonlyMap<string, ReadonlyArray<string>>,
  downstream: ReadonlyMap<string, ReadonlyArray<string>>
): TopoResult => {
  const indegree = new Map<string, number>()
  const ready = new MinHeap()
  for (const node of nodes) {
    const n = upstream.get(node)?.length ?? 0
    indegree.set(node, n)
    if (n === 0) ready.push(node)
  }
  const order: Array<string> = []
  for (let node = ready.pop(); node !== undefined; node = ready.pop()) {
    order.push(node)
    for (const child of downstream.get(node) ?? []) {
      const left = (indegree.get(child) ?? 0) - 1
      indegree.set(child, left)
      if (left === 0) ready.push(child)
    }
  }
  const placed = new Set(order)
  return { order, blocked: nodes.filter((n) => !placed.has(n)).sort() }
}

/** One cycle among `blocked` nodes, as a path whose first node is repeated at the end. */
export const findCycle = (
  blocked: ReadonlyArray<string>,
  upstream: ReadonlyMap<string, ReadonlyArray<string>>
): ReadonlyArray<string> => {
  const inBlocked = new Set(blocked)
  const state = new Map<string, "visiting" | "done">()
  const path: Array<string> = []
  const visit = (node: string): ReadonlyArray<string> | undefined => {
    state.set(node, "visiting")
    path.push(node)
    for (const dep of [...(upstream.get(node) ?? [])].sort()) {
      if (!inBlocked.has(dep)) continue
      const s = state.get(dep)
      if (s === "visiting") return [...path.slice(path.indexOf(dep)), dep]
      if (s === undefined) {
        const found = visit(dep)
        if (found !== undefined) return found
      }
    }
    path.pop()
    state.set(node, "done")
    return undefined
  }
  for (const start of blocked) {
    if (state.has(start)) continue
    const found = visit(start)
    if (found !== undefined) return found
  }
  return blocked
}

/** Longest-path depth of each node (0 for nodes without upstreams), given a topological order. */
export const depths = (
  order: ReadonlyArray<string>,
  upstream: ReadonlyMap<string, ReadonlyArray<string>>
): ReadonlyMap<string, number> => {
  const depth = new Map<string, number>()
  for (const node of order) {
    let d = 0
    for (const dep of upstream.get(node) ?? []) d = Math.max(d, (depth.get(dep) ?? 0) + 1)
    depth.set(node, d)
  }
  return depth
}

/** Each node's downstream closure size, each closure walked on its own: the reference for `reachableCountsIndexed` (graphIndexed.ts). */
export const reachableCountsPlain = (
  order: ReadonlyArray<string>,
  downstream: ReadonlyMap<string, ReadonlyArray<string>>
): ReadonlyMap<string, number> => new Map(order.map((node) => [node, closureOf(node, downstream).length]))

/** Transitive downstream closure of `start` (excluding it), sorted. */
export const closureOf = (start: string, downstream: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyArray<string> => {
  const seen = new Set<string>()
  const stack = [...(downstream.get(start) ?? [])]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    for (const child of downstream.get(node) ?? []) stack.push(child)
  }
  seen.delete(start)
  return [...seen].sort()
}
