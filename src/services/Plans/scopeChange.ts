import { Effect } from "effect"
import type { ChangeFinding, ModelFiles } from "../../schemas/plans"
import type { BuiltAttributes, ModelAttributes } from "../PolicyEngine/attributes"
import { PolicyEngine } from "../PolicyEngine/PolicyEngine"
import type { ScopeReads } from "../PolicyEngine/scopeReads"
import { type BuildState, RunStore } from "../Runner/RunStore"

/**
 * decisions.md 33: removing a contract, or changing a tag or classification some rule's scope
 * reads, is itself a breaking change; each finding's `detail` says which attribute changed. Plan
 * creation calls this against the last build (else the diff's base), and so can apply's re-derivation.
 */
export const scopeAttributeChanges = (before: BuiltAttributes, after: BuiltAttributes, reads: ScopeReads): ReadonlyArray<ChangeFinding> => {
  const findings: Array<ChangeFinding> = []
  const push = (detail: string, column?: string) => findings.push({ kind: "scope_attribute_changed", detail, ...(column === undefined ? {} : { column }) })
  if (before.contracted && !after.contracted) findings.push({ kind: "contract_removed", detail: "contract removed" })
  else if (!before.contracted && after.contracted && reads.contracted) push("contract added")
  const has = (o: Readonly<Record<string, string>>, k: string) => Object.prototype.hasOwnProperty.call(o, k)
  for (const key of [...new Set([...Object.keys(before.tags), ...Object.keys(after.tags)])].sort()) {
    if (!reads.tagKeys.has(key)) continue
    const was = has(before.tags, key) ? before.tags[key] : undefined
    const now = has(after.tags, key) ? after.tags[key] : undefined
    if (was === now) continue
    push(was === undefined ? `tag ${key} added (${now})` : now === undefined ? `tag ${key} removed (was ${was})` : `tag ${key} changed ${was} -> ${now}`)
  }
  for (const column of [...new Set([...Object.keys(before.classification), ...Object.keys(after.classification)])].sort()) {
    const was = has(before.classification, column) ? before.classification[column] : undefined
    const now = has(after.classification, column) ? after.classification[column] : undefined
    if (was === now || !((was !== undefined && reads.classifications.has(was)) || (now !== undefined && reads.classifications.has(now)))) continue
    push(
      was === undefined
        ? `classification ${now} added to column ${column}`
        : now === undefined
          ? `classification ${was} removed from column ${column}`
          : `classification of column ${column} changed ${was} -> ${now}`,
      column
    )
  }
  return findings
}

/** The findings' details, for a reason: `tag layer changed mart -> raw, contract removed`. */
export const describeScopeChanges = (findings: ReadonlyArray<ChangeFinding>): ReadonlyArray<string> => findings.map((f) => f.detail ?? f.kind)

/** Whether policy would see the two the same way (tags, classification set, contract). */
export const sameScopeAttributes = (a: ModelAttributes, b: ModelAttributes): boolean => {
  const ta = Object.keys(a.tags)
  if (ta.length !== Object.keys(b.tags).length || ta.some((k) => a.tags[k] !== b.tags[k])) return false
  const ca = new Set(a.classifications)
  const cb = new Set(b.classifications)
  return a.contracted === b.contracted && ca.size === cb.size && [...ca].every((c) => cb.has(c))
}

/** Each model's attributes as its last build recorded them. */
export const attributesByModel = (states: ReadonlyMap<string, BuildState>): ReadonlyMap<string, BuiltAttributes> => {
  const out = new Map<string, BuiltAttributes>()
  for (const [name, state] of states) if (state.attributes !== undefined) out.set(name, state.attributes)
  return out
}

/** Every model's attributes as last built or applied: one read of the run store. */
export const builtAttributes = Effect.flatMap(RunStore, (store) => Effect.map(store.buildStates, attributesByModel))

/** What the last builds recorded and what the rules' scopes read: lets the gate judge each model as built too. */
export interface BuiltContext {
  readonly attributes: ReadonlyMap<string, BuiltAttributes>
  /** Per relation, the model whose build wrote it last: a model renamed onto it is judged as that build too. */
  readonly lastWriter: ReadonlyMap<string, string>
  readonly reads: ScopeReads
  /** Each model's files as last built: a plan's change is judged against them as well as its base. */
  readonly files: ReadonlyMap<string, ModelFiles>
}

/** The context over builds already read (the latest build of a relation names its writer; ties by name). */
export const builtContextOf = (states: ReadonlyMap<string, BuildState>, reads: ScopeReads): BuiltContext => {
  const latest = new Map<string, { readonly model: string; readonly at: string }>()
  for (const [model, state] of states) {
    const relation = state.attributes?.relation
    if (relation === undefined) continue
    const seen = latest.get(relation)
    if (seen === undefined || state.built_at > seen.at || (state.built_at === seen.at && model < seen.model)) latest.set(relation, { model, at: state.built_at })
  }
  const files = new Map<string, ModelFiles>()
  for (const [model, state] of states) if (state.files !== undefined) files.set(model, state.files)
  return { attributes: attributesByModel(states), lastWriter: new Map([...latest].map(([r, w]) => [r, w.model])), reads, files }
}

/** The built context for a gate: the run store read once, the policy's scope reads. */
export const builtContext = Effect.flatMap(PolicyEngine, (engine) =>
  Effect.flatMap(RunStore, (store) => Effect.map(store.buildStates, (states) => builtContextOf(states, engine.scopeReads)))
)
