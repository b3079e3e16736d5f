import { Effect } from "effect"
import type { ModelChange } from "../../schemas/plans"
import type { ChangeFinding } from "../../schemas/plans"
import type { BuiltAttributes } from "../PolicyEngine/attributes"
import { type AnalyzedRevision, analyzeRevisions, changeFindings, classifyFindings } from "../Project/changes"
import { type BuiltContext, scopeAttributeChanges } from "./scopeChange"
import type { StatementFailed } from "../Warehouse/Warehouse"
import { fingerprintOf, type Revision } from "./revisions"

export { breakingFindings } from "../Project/breakingFindings"

/**
 * The models among `candidates` whose files differ between `base` and `working`, each
 * classified from DuckDB's parse of both SQL texts and both contracts. Sorted by name.
 */
export const diffRevisions = (
  base: Revision,
  working: Revision,
  candidates: Iterable<string>,
  env: Readonly<Record<string, string | undefined>>,
  scope?: BuiltContext
): Effect.Effect<ReadonlyArray<ModelChange>, StatementFailed> =>
  Effect.gen(function* () {
    const changed = [...new Set(candidates)].sort().flatMap((model) => {
      const before = base.get(model)
      const after = working.get(model)
      const beforeFp = before === undefined ? null : fingerprintOf(before)
      const afterFp = after === undefined ? null : fingerprintOf(after)
      return beforeFp === afterFp ? [] : [{ model, before, after, beforeFp, afterFp }]
    })
    // One parser batch for both sides of every changed model.
    const items = changed.flatMap((c) => {
      const parseSql = c.before !== undefined && c.after !== undefined
      return [
        ...(c.before === undefined ? [] : [{ model: c.model, files: c.before, parseSql }]),
        ...(c.after === undefined ? [] : [{ model: c.model, files: c.after, parseSql }])
      ]
    })
    const analyzed = yield* analyzeRevisions(items, env)
    let at = 0
    return changed.map((c): ModelChange => {
      const before = c.before === undefined ? undefined : analyzed[at++]
      const after = c.after === undefined ? undefined : analyzed[at++]
      const findings = withScopeFindings(changeFindings(before, after), c.model, before, after, scope)
      const removed = after === undefined && before !== undefined
      return {
        model: c.model,
        change_class: classifyFindings(findings),
        findings,
        before: c.beforeFp,
        after: c.afterFp,
        ...(removed
          ? {
              base_attributes: {
                tags: { ...(before.sidecar?.tags ?? {}) },
                classifications: [...new Set(Object.values(before.sidecar?.classification ?? {}))].sort(),
                contracted: before.files.contract !== null
              }
            }
          : {})
      }
    })
  })

/** What policy scopes read of one analyzed revision. */
const attributesOfRevision = (r: AnalyzedRevision): BuiltAttributes => ({
  tags: r.sidecar?.tags ?? {},
  classification: r.sidecar?.classification ?? {},
  contracted: r.files.contract !== null
})

/**
 * With a scope context, the scope attribute changes (decisions.md 33) since the model's last
 * build, or since the base when it has none, join the findings.
 */
const withScopeFindings = (
  findings: ReadonlyArray<ChangeFinding>,
  model: string,
  before: AnalyzedRevision | undefined,
  after: AnalyzedRevision | undefined,
  scope: BuiltContext | undefined
): ReadonlyArray<ChangeFinding> => {
  if (scope === undefined || after === undefined) return findings
  const was = scope.attributes.get(model) ?? (before === undefined ? undefined : attributesOfRevision(before))
  if (was === undefined) return findings
  const extra = scopeAttributeChanges(was, attributesOfRevision(after), scope.reads).filter(
    (f) => !(f.kind === "contract_removed" && findings.some((g) => g.kind === "contract_removed"))
  )
  return extra.length === 0 ? findings : [...findings, ...extra]
}

