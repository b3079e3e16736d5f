import type { ScopeTable } from "../../schemas/policy"
import type { EvaluationSubject } from "./attributes"
import { globMatcher } from "./glob"

/**
 * A predicate index over the rules of one bucket: every scope key is a dimension whose
 * "passes" set is a bitset over the bucket's rules (bit i = i-th rule in file order), so a
 * match is the AND of a handful of word-wide sets instead of one closure call per rule.
 * Per-value hit lists stay sparse (rule positions), keeping memory linear in the rule count.
 */
export type Bits = Int32Array

interface GlobCheck {
  readonly rule: number
  readonly test: (name: string) => boolean
}

interface InfixCheck extends GlobCheck {
  readonly slot: number
}

/** Globs by literal prefix (or suffix, walked backwards): a node is reached after consuming it from the name. */
interface TrieNode {
  readonly children: Map<number, TrieNode>
  /** `prefix*` (or `*suffix`): matches every name reaching this node. */
  readonly prefixed: Array<number>
  /** Other globs with this literal prefix: verified against the whole name. */
  readonly verified: Array<GlobCheck>
}

/**
 * One equality-constrained key: `none` = rules not constraining it; per value, the pass set
 * (`none` ∪ rules requiring it) precomputed when few values, else the sparse hit list.
 */
interface Keyed {
  readonly key: string
  readonly none: Bits
  readonly passes: ReadonlyMap<string, Bits> | undefined
  readonly byValue: ReadonlyMap<string, Int32Array>
}

/** A key constrained by few rules: each rule's position and required value. */
interface RareKey {
  readonly key: string
  readonly rules: Int32Array
  readonly values: ReadonlyArray<string>
}

/** Dense per-value sets are kept while they cost at most this many words per dimension. */
const DENSE_WORDS = 1 << 15

export interface RuleIndex {
  readonly size: number
  readonly words: number
  /** Rules without a model constraint, or with a glob matching every name. */
  readonly modelFree: Bits
  readonly exact: ReadonlyMap<string, Int32Array>
  readonly trie: TrieNode | undefined
  /** Globs without a literal prefix but with a literal suffix (`*_orders`), by reversed suffix. */
  readonly suffixTrie: TrieNode | undefined
  /** Globs with neither but a literal run of ≥ 2 characters (`*_pii*`), by that run's first two code units. */
  readonly infix: ReadonlyMap<number, ReadonlyArray<InfixCheck>>
  readonly infixCount: number
  /** Globs with no usable literal (`*s*`, `?x?`): verified on every evaluation. */
  readonly floating: ReadonlyArray<GlobCheck>
  readonly layer: Keyed | undefined
  readonly tags: ReadonlyArray<Keyed>
  /** Tag keys few rules constrain: those rules are cleared unless the value matches (no word-wide pass). */
  readonly rareTags: ReadonlyArray<RareKey>
  /** Pass sets for contracted = false / true. */
  readonly contracted: readonly [Bits, Bits] | undefined
  readonly include:
    | {
        readonly none: Bits
        readonly byClass: ReadonlyMap<string, Int32Array>
        /** Per class, `none` ∪ rules wanting it (when few classes): one class needs no scratch. */
        readonly passes: ReadonlyMap<string, Bits> | undefined
      }
    | undefined
  readonly exclude: ReadonlyMap<string, Int32Array> | undefined
}

/** One evaluation's working sets, owned by that evaluation until it ends (the index itself is never written). */
export interface IndexScratch {
  /** The match set being built (what `matchRules` returns). */
  readonly acc: Bits
  readonly tmp: Bits
  /** Per infix glob, the evaluation (epoch) that last verified it: a glob is verified once per evaluation. */
  readonly infixStamps: Int32Array
  epoch: number
}

export const indexScratch = (index: RuleIndex): IndexScratch => ({
  acc: new Int32Array(index.words),
  tmp: new Int32Array(index.words),
  infixStamps: new Int32Array(index.infixCount),
  epoch: 0
})

const nonEmpty = <A>(xs: ReadonlyArray<A> | undefined): xs is ReadonlyArray<A> => xs !== undefined && xs.length > 0

const hasOwn = (record: object, key: string) => Object.prototype.hasOwnProperty.call(record, key)

const setBit = (bits: Bits, i: number) => {
  bits[i >> 5]! |= 1 << (i & 31)
}

const setAll = (bits: Bits, rules: Int32Array) => {
  for (let k = 0; k < rules.length; k++) {
    const i = rules[k]!
    bits[i >> 5]! |= 1 << (i & 31)
  }
}

const clearAll = (bits: Bits, rules: Int32Array) => {
  for (let k = 0; k < rules.length; k++) {
    const i = rules[k]!
    bits[i >> 5]! &= ~(1 << (i & 31))
  }
}

const and = (bits: Bits, other: Bits) => {
  for (let w = 0; w < bits.length; w++) bits[w]! &= other[w]!
}

const pushTo = (map: Map<string, Array<number>>, key: string, rule: number) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [rule])
  else if (list[list.length - 1] !== rule) list.push(rule)
}

const freeze = (map: Map<string, Array<number>>): Map<string, Int32Array> =>
  new Map([...map].map(([k, list]) => [k, Int32Array.from(list)]))

/** `*`/`?` split: the literal head, and whether the rest is only `*` (then a prefix test suffices). */
const splitGlob = (glob: string): { readonly prefix: string; readonly starsOnly: boolean } => {
  const stop = glob.search(/[*?]/)
  if (stop === -1) return { prefix: glob, starsOnly: false }
  return { prefix: glob.slice(0, stop), starsOnly: /^\*+$/.test(glob.slice(stop)) }
}

/** The longest literal run of a glob. */
const longestRun = (glob: string): string => glob.split(/[*?]/).reduce((a, b) => (b.length > a.length ? b : a), "")

const bigram = (text: string, at: number): number => (text.charCodeAt(at) << 16) | text.charCodeAt(at + 1)

/** The literal tail after the last wildcard, and whether everything before it is `*` (then a suffix test suffices). */
const splitSuffix = (glob: string): { readonly suffix: string; readonly starsOnly: boolean } => {
  const last = Math.max(glob.lastIndexOf("*"), glob.lastIndexOf("?"))
  return { suffix: glob.slice(last + 1), starsOnly: /^\*+$/.test(glob.slice(0, last + 1)) }
}

const trieNode = (): TrieNode => ({ children: new Map(), prefixed: [], verified: [] })

const trieInsert = (root: TrieNode, prefix: string, backwards: boolean): TrieNode => {
  let node = root
  for (let i = 0; i < prefix.length; i++) {
    const code = prefix.charCodeAt(backwards ? prefix.length - 1 - i : i)
    let next = node.children.get(code)
    if (next === undefined) {
      next = trieNode()
      node.children.set(code, next)
    }
    node = next
  }
  return node
}

const keyed = (key: string, words: number, size: number, constrained: ReadonlyArray<readonly [number, string]>): Keyed => {
  const none = fullSet(words, size)
  const byValue = new Map<string, Array<number>>()
  for (const [rule, value] of constrained) {
    none[rule >> 5]! &= ~(1 << (rule & 31))
    pushTo(byValue, value, rule)
  }
  const sparse = freeze(byValue)
  return { key, none, passes: densePasses(none, sparse, words), byValue: sparse }
}

const densePasses = (base: Bits, hits: ReadonlyMap<string, Int32Array>, words: number): Map<string, Bits> | undefined => {
  if (hits.size * words > DENSE_WORDS) return undefined
  return new Map(
    [...hits].map(([value, rules]) => {
      const bits = Int32Array.from(base)
      setAll(bits, rules)
      return [value, bits]
    })
  )
}

const fullSet = (words: number, size: number): Bits => {
  const bits = new Int32Array(words)
  for (let i = 0; i < size; i++) setBit(bits, i)
  return bits
}

const includeDimension = (none: Bits, byClass: Map<string, Int32Array>, words: number) => ({
  none,
  byClass,
  passes: densePasses(none, byClass, words)
})

/** Builds the index over `scopes` (position = bit). */
export const buildRuleIndex = (scopes: ReadonlyArray<ScopeTable>): RuleIndex => {
  const size = scopes.length
  const words = Math.max(1, (size + 31) >> 5)
  const modelFree = new Int32Array(words)
  const exact = new Map<string, Array<number>>()
  let trie: TrieNode | undefined
  let suffixTrie: TrieNode | undefined
  const floating: Array<GlobCheck> = []
  const infix = new Map<number, Array<InfixCheck>>()
  let infixCount = 0
  const layered: Array<readonly [number, string]> = []
  const tagged = new Map<string, Array<readonly [number, string]>>()
  const contractedFalse = new Int32Array(words)
  const contractedTrue = new Int32Array(words)
  let anyContracted = false
  const includeNone = new Int32Array(words)
  const includeBy = new Map<string, Array<number>>()
  const excludeBy = new Map<string, Array<number>>()

  scopes.forEach((scope, i) => {
    if (!nonEmpty(scope.models)) setBit(modelFree, i)
    else {
      for (const glob of scope.models) {
        const { prefix, starsOnly } = splitGlob(glob)
        if (prefix === glob) pushTo(exact, glob, i)
        else if (prefix === "" && starsOnly) setBit(modelFree, i)
        else if (prefix === "") {
          const { suffix, starsOnly: suffixOnly } = splitSuffix(glob)
          const run = longestRun(glob)
          if (suffix === "" && run.length >= 2) {
            // Any matching name contains the run, hence the run's first two code units.
            const key = bigram(run, 0)
            const check = { rule: i, test: globMatcher(glob), slot: infixCount++ }
            const list = infix.get(key)
            if (list === undefined) infix.set(key, [check])
            else list.push(check)
          } else if (suffix === "") floating.push({ rule: i, test: globMatcher(glob) })
          else {
            suffixTrie ??= trieNode()
            const node = trieInsert(suffixTrie, suffix, true)
            if (suffixOnly) node.prefixed.push(i)
            else node.verified.push({ rule: i, test: globMatcher(glob) })
          }
        } else {
          trie ??= trieNode()
          const node = trieInsert(trie, prefix, false)
          if (starsOnly) node.prefixed.push(i)
          else node.verified.push({ rule: i, test: globMatcher(glob) })
        }
      }
    }
    if (scope.layer !== undefined) layered.push([i, scope.layer])
    for (const [key, value] of Object.entries(scope.tags ?? {})) {
      const list = tagged.get(key)
      if (list === undefined) tagged.set(key, [[i, value]])
      else list.push([i, value])
    }
    if (scope.contracted === undefined || !scope.contracted) setBit(contractedFalse, i)
    if (scope.contracted === undefined || scope.contracted) setBit(contractedTrue, i)
    if (scope.contracted !== undefined) anyContracted = true
    if (!nonEmpty(scope.classifications)) setBit(includeNone, i)
    else for (const c of scope.classifications) pushTo(includeBy, c, i)
    if (nonEmpty(scope.exclude_classifications)) for (const c of scope.exclude_classifications) pushTo(excludeBy, c, i)
  })

  return {
    size,
    words,
    modelFree,
    exact: freeze(exact),
    trie,
    suffixTrie,
    infix,
    infixCount,
    floating,
    layer: layered.length === 0 ? undefined : keyed("layer", words, size, layered),
    // A key constrained by fewer rules than a few words' worth is cheaper per rule than per word.
    tags: [...tagged].filter(([, list]) => list.length > words * 2).map(([key, list]) => keyed(key, words, size, list)),
    rareTags: [...tagged]
      .filter(([, list]) => list.length <= words * 2)
      .map(([key, list]) => ({ key, rules: Int32Array.from(list, (e) => e[0]), values: list.map((e) => e[1]) })),
    contracted: anyContracted ? [contractedFalse, contractedTrue] : undefined,
    include: includeBy.size === 0 ? undefined : includeDimension(includeNone, freeze(includeBy), words),
    exclude: excludeBy.size === 0 ? undefined : freeze(excludeBy)
  }
}

const andKeyed = (acc: Bits, tmp: Bits, dim: Keyed, value: string | undefined) => {
  if (dim.passes !== undefined) {
    and(acc, (value === undefined ? undefined : dim.passes.get(value)) ?? dim.none)
    return
  }
  const hits = value === undefined ? undefined : dim.byValue.get(value)
  if (hits === undefined) and(acc, dim.none)
  else {
    tmp.set(dim.none)
    setAll(tmp, hits)
    and(acc, tmp)
  }
}

const matchInfix = (index: RuleIndex, name: string, scratch: IndexScratch) => {
  const { acc, infixStamps } = scratch
  let epoch = scratch.epoch + 1
  if (epoch === 0x7fffffff) {
    infixStamps.fill(0)
    epoch = 1
  }
  scratch.epoch = epoch
  for (let i = 0; i + 1 < name.length; i++) {
    const list = index.infix.get(bigram(name, i))
    if (list === undefined) continue
    for (const glob of list) {
      if (infixStamps[glob.slot] === epoch) continue
      infixStamps[glob.slot] = epoch
      if (glob.test(name)) setBit(acc, glob.rule)
    }
  }
}

/** The rules whose scope the subject satisfies, as a bitset: `scratch.acc`. */
export const matchRules = (index: RuleIndex, subject: EvaluationSubject, scratch: IndexScratch): Bits => {
  const { acc, tmp } = scratch
  acc.set(index.modelFree)
  const name = subject.name
  if (index.exact.size > 0) {
    const hits = index.exact.get(name)
    if (hits !== undefined) setAll(acc, hits)
  }
  let node = index.trie
  for (let i = 0; node !== undefined && i < name.length; i++) {
    node = node.children.get(name.charCodeAt(i))
    if (node === undefined) break
    for (const rule of node.prefixed) setBit(acc, rule)
    for (const glob of node.verified) if (glob.test(name)) setBit(acc, glob.rule)
  }
  node = index.suffixTrie
  for (let i = name.length - 1; node !== undefined && i >= 0; i--) {
    node = node.children.get(name.charCodeAt(i))
    if (node === undefined) break
    for (const rule of node.prefixed) setBit(acc, rule)
    for (const glob of node.verified) if (glob.test(name)) setBit(acc, glob.rule)
  }
  if (index.infix.size > 0 && name.length >= 2) matchInfix(index, name, scratch)
  for (const glob of index.floating) if (glob.test(name)) setBit(acc, glob.rule)
  if (index.layer !== undefined) andKeyed(acc, tmp, index.layer, subject.layer)
  const tags = subject.tags
  for (const dim of index.tags) andKeyed(acc, tmp, dim, hasOwn(tags, dim.key) ? tags[dim.key] : undefined)
  for (const dim of index.rareTags) {
    const value = hasOwn(tags, dim.key) ? tags[dim.key] : undefined
    for (let k = 0; k < dim.rules.length; k++) {
      if (dim.values[k] !== value) {
        const i = dim.rules[k]!
        acc[i >> 5]! &= ~(1 << (i & 31))
      }
    }
  }
  if (index.contracted !== undefined) and(acc, index.contracted[subject.contracted ? 1 : 0])
  const classes = subject.classifications
  if (index.include !== undefined) {
    if (classes.size === 0) and(acc, index.include.none)
    else if (classes.size === 1 && index.include.passes !== undefined) {
      for (const c of classes) and(acc, index.include.passes.get(c) ?? index.include.none)
    } else {
      tmp.set(index.include.none)
      for (const c of classes) {
        const hits = index.include.byClass.get(c)
        if (hits !== undefined) setAll(tmp, hits)
      }
      and(acc, tmp)
    }
  }
  if (index.exclude !== undefined && classes.size > 0) {
    for (const c of classes) {
      const hits = index.exclude.get(c)
      if (hits !== undefined) clearAll(acc, hits)
    }
  }
  return acc
}
