import type { PolicyBlock } from "../../schemas/policy"

/** The model attributes some rule's scope reads: changing one of them can move a model between rules. */
export interface ScopeReads {
  /** Tag keys a scope names (`layer` when any scope names a layer). */
  readonly tagKeys: ReadonlySet<string>
  /** Classification values a scope includes or excludes. */
  readonly classifications: ReadonlySet<string>
  /** Whether a scope reads `contracted`. */
  readonly contracted: boolean
}

export const NO_SCOPE_READS: ScopeReads = { tagKeys: new Set(), classifications: new Set(), contracted: false }

/** What the rules' scopes read, from the `[policy]` block (nothing without one). */
export const scopeReadsOf = (block: PolicyBlock | undefined): ScopeReads => {
  const tagKeys = new Set<string>()
  const classifications = new Set<string>()
  let contracted = false
  for (const rule of block?.rules ?? []) {
    const scope = rule.scope
    if (scope === undefined) continue
    if (scope.layer !== undefined) tagKeys.add("layer")
    for (const key of Object.keys(scope.tags ?? {})) tagKeys.add(key)
    for (const c of [...(scope.classifications ?? []), ...(scope.exclude_classifications ?? [])]) classifications.add(c)
    if (scope.contracted !== undefined) contracted = true
  }
  return { tagKeys, classifications, contracted }
}
