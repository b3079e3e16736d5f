/**
 * The graph algorithms of `graph.ts` over node numbers instead of names: node `i` is the i-th name
 * in sorted order, so "alphabetical" is "smallest number", and every lookup is an array index, not
 * a string-keyed Map (a compile of 10,000 models spent most of its graph time in Map lookups).
 * `graph.ts` keeps the plain versions; a property test compares the two.
 */

/** Each node's neighbours, ascending: `lists[i]` (upstreams or downstreams of node i). */
export type Neighbours = ReadonlyArray<ReadonlyArray<number>>

/** Binary min-heap of node numbers in an Int32Array (the ready set of Kahn's algorithm). */
const makeHeap = (capacity: number) => {
  const a = new Int32Array(Math.max(1, capacity))
  let size = 0
  const push = (value: number) => {
    let i = size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (a[parent]! <= value) break
      a[i] = a[parent]!
      i = parent
    }
    a[i] = value
  }
  /** The smallest number, or -1 when empty. */
  const pop = (): number => {
    if (size === 0) return -1
    const top = a[0]!
    const last = a[--size]!
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= size) break
      const m = l + 1 < size && a[l + 1]! < a[l]! ? l + 1 : l
      if (a[m]! >= last) break
      a[i] = a[m]!
      i = m
    }
    a[i] = last
    return top
  }
  return { push, pop }
}

/** `kahnOrder` over node numbers: the order (smallest ready first) and the nodes left on or behind a cycle, ascending. */
export const kahnOrderIndexed = (upstream: Neighbours, downstream: Neighbours): { order: Int32Array; blocked: Array<number> } => {
  const n = upstream.length
  const indegree = new Int32Array(n)
  const ready = makeHeap(n)
  for (let i = 0; i < n; i++) {
    indegree[i] = upstream[i]!.length
    if (indegree[i] === 0) ready.push(i)
  }
  const order = new Int32Array(n)
  let placed = 0
  for (let node = ready.pop(); node !== -1; node = ready.pop()) {
    order[placed++] = node
    const children = downstream[node]!
    for (let k = 0; k < children.length; k++) {
      const child = children[k]!
      if (--indegree[child]! === 0) ready.push(child)
    }
  }
  const blocked: Array<number> = []
  if (placed < n) for (let i = 0; i < n; i++) if (indegree[i]! > 0) blocked.push(i)
  return { order: order.subarray(0, placed), blocked }
}

/** `depths` over node numbers: the longest upstream path of each node, given a topological order of all of them. */
export const depthsIndexed = (order: Int32Array, upstream: Neighbours): Int32Array => {
  const depth = new Int32Array(upstream.length)
  for (let k = 0; k < order.length; k++) {
    const node = order[k]!
    const deps = upstream[node]!
    let d = 0
    for (let j = 0; j < deps.length; j++) d = Math.max(d, depth[deps[j]!]! + 1)
    depth[node] = d
  }
  return depth
}

const popcount32 = (x: number) => {
  x = x - ((x >>> 1) & 0x55555555)
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

/**
 * Size of each node's transitive downstream closure (excluding itself), by OR-ing bitsets in
 * reverse topological order: O(edges × nodes / 32) words, no per-node traversal. Bits are
 * positions in `order`; a node's downstreams all come later, so its bitset starts at its own
 * word (half the words). `reachableCountsPlain` (graph.ts) is the reference.
 */
export const reachableCountsIndexed = (order: Int32Array, downstream: Neighbours): Int32Array => {
  const n = order.length
  const position = new Int32Array(downstream.length)
  for (let k = 0; k < n; k++) position[order[k]!] = k
  const words = Math.ceil(n / 32)
  const sets: Array<Uint32Array | undefined> = new Array(n)
  const counts = new Int32Array(downstream.length)
  for (let k = n - 1; k >= 0; k--) {
    const children = downstream[order[k]!]!
    if (children.length === 0) continue
    // Bits from word `first` on: word w of the set is `bits[w - first]`.
    const first = k >>> 5
    const bits = new Uint32Array(words - first)
    for (let c = 0; c < children.length; c++) {
      const at = position[children[c]!]!
      bits[(at >>> 5) - first]! |= 1 << (at & 31)
      const childBits = sets[at]
      if (childBits === undefined) continue
      const offset = words - childBits.length - first
      for (let w = 0; w < childBits.length; w++) bits[w + offset]! |= childBits[w]!
    }
    sets[k] = bits
    let count = 0
    for (let w = 0; w < bits.length; w++) if (bits[w] !== 0) count += popcount32(bits[w]!)
    counts[order[k]!] = count
  }
  return counts
}
