import type { EvaluationSubject } from "./attributes"
import { breachedAt, type CompiledRule, NO_SELECTION, type Selection } from "./plain"
import { type Bits, buildRuleIndex, type IndexScratch, indexScratch, matchRules, type RuleIndex } from "./ruleIndex"

/**
 * The bitset evaluator for large buckets: the rules of one `principal|capability` (refinements
 * included), laid out so selection is word-wide: bit positions hold the deny rules first, then
 * one contiguous range per constraint set; every range is in file order, so its lowest set bit
 * is its earliest rule. It must agree with `selectPlain` (plain.ts) exactly. Never written
 * after it is built except its scratch pool: each evaluation takes a scratch of its own for its
 * whole duration, so evaluations may nest or interleave.
 */
export interface IndexedBucket {
  /** Rules by bit position. */
  readonly rules: ReadonlyArray<CompiledRule>
  readonly index: RuleIndex
  /** Positions [0, denyEnd) are the deny rules. */
  readonly denyEnd: number
  /** Constraint-set ranges ("groups"): set, first/last word, first/last word masks. */
  readonly groupMask: Int32Array
  readonly groupW0: Int32Array
  readonly groupW1: Int32Array
  readonly groupM0: Int32Array
  readonly groupM1: Int32Array
  /** Per group, the groups whose constraint set strictly contains its own (largest first). */
  readonly groupSupersets: ReadonlyArray<Int32Array>
  readonly reviews: Bits
  /** Allow rules with a `max_downstreams` (positions), by ascending ceiling. */
  readonly ceilingRules: Int32Array
  readonly ceilingValues: Float64Array
  /** Every `stride` ceiling rules, the set of the ones before: a breach set is one copy plus < stride bits. */
  readonly ceilingSnapshots: ReadonlyArray<Bits>
  readonly ceilingStride: number
  /** Scratch not in use (a nested evaluation finds it empty and allocates; allocating per call is ~10× slower). */
  readonly spare: Array<Scratch>
}

/** One evaluation's working memory, sized from the bucket (groups, words), never from a fixed table; clean when spare. */
interface Scratch extends IndexScratch {
  readonly breached: Bits
  /** Per group: 1 when it has a candidate; and the groups that do. */
  readonly present: Uint8Array
  readonly live: Int32Array
  readonly few: Int32Array
}

const scratchFor = (bucket: IndexedBucket): Scratch => {
  const groups = bucket.groupMask.length
  return {
    ...indexScratch(bucket.index),
    breached: new Int32Array(bucket.index.words),
    present: new Uint8Array(groups),
    live: new Int32Array(groups),
    few: new Int32Array(FEW)
  }
}

const wordMask = (from: number, to: number, w: number): number => {
  let mask = -1
  if (w === from >> 5) mask &= -1 << (from & 31)
  if (w === (to - 1) >> 5 && (to & 31) !== 0) mask &= ~(-1 << (to & 31))
  return mask
}

const snapshots = (positions: ReadonlyArray<number>, words: number, stride: number): Array<Bits> => {
  const out: Array<Bits> = []
  const bits = new Int32Array(words)
  positions.forEach((i, k) => {
    if (k % stride === 0) out.push(Int32Array.from(bits))
    bits[i >> 5]! |= 1 << (i & 31)
  })
  if (positions.length % stride === 0) out.push(bits)
  return out
}

/** How many of the ascending `values` are below `limit`. */
const countBelow = (values: Float64Array, limit: number): number => {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (values[mid]! < limit) lo = mid + 1
    else hi = mid
  }
  return lo
}

export const makeIndexedBucket = (fileOrder: ReadonlyArray<CompiledRule>): IndexedBucket => {
  const denies = fileOrder.filter((r) => r.effect === "deny")
  const byMask = new Map<number, Array<CompiledRule>>()
  for (const r of fileOrder) {
    if (r.effect === "deny") continue
    const list = byMask.get(r.constraints)
    if (list === undefined) byMask.set(r.constraints, [r])
    else list.push(r)
  }
  const rules = [...denies, ...[...byMask.values()].flat()]
  const index = buildRuleIndex(rules.map((r) => r.rule.scope ?? { any: true }))
  const groups: Array<{ mask: number; from: number; to: number }> = []
  let at = denies.length
  for (const [mask, list] of byMask) {
    groups.push({ mask, from: at, to: at + list.length })
    at += list.length
  }
  const bySize = groups.map((g, j) => [j, g.to - g.from] as const).sort((a, b) => b[1] - a[1] || a[0] - b[0])
  const groupSupersets = groups.map((g) =>
    Int32Array.from(bySize.filter(([o]) => groups[o]!.mask !== g.mask && (groups[o]!.mask & g.mask) === g.mask).map(([o]) => o))
  )
  const ceilingStride = Math.max(32, index.words)
  const reviews = new Int32Array(index.words)
  rules.forEach((r, i) => {
    if (r.effect === "require_review") reviews[i >> 5]! |= 1 << (i & 31)
  })
  const ceilinged = rules
    .map((r, i) => [i, r.effect === "allow" ? r.maxDownstreams : undefined] as const)
    .filter((e): e is readonly [number, number] => e[1] !== undefined)
    .sort((a, b) => a[1] - b[1] || a[0] - b[0])
  return {
    rules,
    index,
    denyEnd: denies.length,
    groupMask: Int32Array.from(groups, (g) => g.mask),
    groupW0: Int32Array.from(groups, (g) => g.from >> 5),
    groupW1: Int32Array.from(groups, (g) => (g.to - 1) >> 5),
    groupM0: Int32Array.from(groups, (g) => wordMask(g.from, g.to, g.from >> 5)),
    groupM1: Int32Array.from(groups, (g) => wordMask(g.from, g.to, (g.to - 1) >> 5)),
    groupSupersets,
    reviews,
    ceilingRules: Int32Array.from(ceilinged, (e) => e[0]),
    ceilingValues: Float64Array.from(ceilinged, (e) => e[1]),
    ceilingSnapshots: snapshots(ceilinged.map((e) => e[0]), index.words, ceilingStride),
    ceilingStride,
    spare: []
  }
}

/** Position of the lowest set bit of word `w` (non-zero `bits`); `-bits` never overflows int32. */
const lowestBit = (w: number, bits: number) => (w << 5) + 31 - Math.clz32(bits === -2147483648 ? bits : bits & -bits)

const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24
}

const dominated = (present: Uint8Array, supersets: Int32Array): boolean => {
  for (let k = 0; k < supersets.length; k++) if (present[supersets[k]!] === 1) return true
  return false
}

// Up to this many candidates, selection compares them directly (no word-wide passes).
const FEW = 12

const earlier = (rules: ReadonlyArray<CompiledRule>, p: number, than: number) => than === -1 || rules[p]!.id < rules[than]!.id

/** Positions to a Selection (review / allow = earliest survivor of each rank, capped = earliest breached candidate). */
const selection = (rules: ReadonlyArray<CompiledRule>, survivors: number, review: number, allow: number, capped: number): Selection => ({
  deny: undefined,
  winner: review !== -1 ? rules[review] : allow !== -1 ? rules[allow] : undefined,
  survivors,
  mixed: review !== -1 && allow !== -1,
  capped: review === -1 && capped !== -1 ? rules[capped] : undefined
})

/** Selection over a handful of candidates, candidate by candidate; undefined when there are more than FEW. */
const fewCandidates = (bucket: IndexedBucket, matched: Bits, limit: number, few: Int32Array): Selection | undefined => {
  let n = 0
  for (let w = 0; w < matched.length; w++) {
    let bits = matched[w]!
    while (bits !== 0) {
      if (n === FEW) return undefined
      const b = 31 - Math.clz32(bits)
      bits ^= 1 << b
      few[n++] = (w << 5) | b
    }
  }
  if (n === 0) return NO_SELECTION
  const rules = bucket.rules
  // Positions of the earliest (by id) review-ranked survivor, allow survivor and breached candidate.
  let review = -1
  let allow = -1
  let capped = -1
  let survivors = 0
  for (let a = 0; a < n; a++) {
    const p = few[a]!
    const rule = rules[p]!
    const breached = breachedAt(rule, limit)
    if (breached && earlier(rules, p, capped)) capped = p
    const m = rule.constraints
    let dominated = false
    for (let b = 0; b < n && !dominated; b++) {
      const o = rules[few[b]!]!.constraints
      dominated = o !== m && (o & m) === m
    }
    if (dominated) continue
    survivors++
    if (breached || rule.effect === "require_review") {
      if (earlier(rules, p, review)) review = p
    } else if (earlier(rules, p, allow)) allow = p
  }
  return selection(rules, survivors, review, allow, capped)
}

/** The masks of group `g` on word `w`. */
const rangeWord = (b: IndexedBucket, g: number, w: number): number =>
  (w === b.groupW0[g]! ? b.groupM0[g]! : -1) & (w === b.groupW1[g]! ? b.groupM1[g]! : -1)

/** `selectPlain` over bit ranges (cost ~ words + constraint sets, not candidates). */
export const selectIndexed = (bucket: IndexedBucket, subject: EvaluationSubject): Selection => {
  const scratch = bucket.spare.pop() ?? scratchFor(bucket)
  const out = selectWith(bucket, subject, scratch)
  // Handed back only after a normal finish (so clean); a throwing subject getter just drops it.
  bucket.spare.push(scratch)
  return out
}

const selectWith = (bucket: IndexedBucket, subject: EvaluationSubject, scratch: Scratch): Selection => {
  const reachable = subject.reachableDownstreams
  // Breached ceilings: ceiling < reachable; an uncountable blast radius breaches every ceiling.
  const limit = reachable === undefined ? Infinity : reachable
  const matched = matchRules(bucket.index, subject, scratch)
  const denyEnd = bucket.denyEnd
  for (let w = 0; w < matched.length && w << 5 < denyEnd; w++) {
    const bits = matched[w]! & wordMask(0, denyEnd, w)
    if (bits !== 0) return { ...NO_SELECTION, deny: bucket.rules[lowestBit(w, bits)] }
  }
  const handful = fewCandidates(bucket, matched, limit, scratch.few)
  if (handful !== undefined) return handful
  const { present, live, breached } = scratch
  const { groupMask, groupW0, groupW1 } = bucket
  const groups = groupMask.length
  let liveCount = 0
  for (let g = 0; g < groups; g++) {
    for (let w = groupW0[g]!, end = groupW1[g]!; w <= end; w++) {
      if ((matched[w]! & rangeWord(bucket, g, w)) !== 0) {
        present[g] = 1
        live[liveCount++] = g
        break
      }
    }
  }
  if (liveCount === 0) return NO_SELECTION
  const { ceilingRules, ceilingStride, reviews, rules } = bucket
  const count = countBelow(bucket.ceilingValues, limit)
  const from = count - (count % ceilingStride)
  breached.set(bucket.ceilingSnapshots[from / ceilingStride]!)
  for (let k = from; k < count; k++) {
    const i = ceilingRules[k]!
    breached[i >> 5]! |= 1 << (i & 31)
  }
  let survivors = 0
  let review = -1
  let allow = -1
  for (let l = 0; l < liveCount; l++) {
    const g = live[l]!
    if (dominated(present, bucket.groupSupersets[g]!)) continue
    let groupReview = -1
    let groupAllow = -1
    for (let w = groupW0[g]!, end = groupW1[g]!; w <= end; w++) {
      const bits = matched[w]! & rangeWord(bucket, g, w)
      if (bits === 0) continue
      survivors += popcount(bits)
      // A breached allow counts as require_review.
      const restrictive = bits & (reviews[w]! | breached[w]!)
      if (groupReview === -1 && restrictive !== 0) groupReview = lowestBit(w, restrictive)
      const permissive = bits & ~restrictive
      if (groupAllow === -1 && permissive !== 0) groupAllow = lowestBit(w, permissive)
    }
    if (groupReview !== -1 && earlier(rules, groupReview, review)) review = groupReview
    if (groupAllow !== -1 && earlier(rules, groupAllow, allow)) allow = groupAllow
  }
  let capped = -1
  if (review === -1) {
    // The sticky cap looks at every candidate, dominated ones included.
    for (let l = 0; l < liveCount; l++) {
      const g = live[l]!
      for (let w = groupW0[g]!, end = groupW1[g]!; w <= end; w++) {
        const bits = matched[w]! & breached[w]! & rangeWord(bucket, g, w)
        if (bits !== 0) {
          const i = lowestBit(w, bits)
          if (earlier(rules, i, capped)) capped = i
          break
        }
      }
    }
  }
  for (let l = 0; l < liveCount; l++) present[live[l]!] = 0
  return selection(rules, survivors, review, allow, capped)
}
