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
 * classified from DuckDB's parse of both SQL texts and both contracts. With a scope context, a
 * model whose last build differs from both sides is judged against that build too (decisions.md
 * 33): the base is the agent's to edit (`.pcli/applied`, `--base`), the build record is not.
 * Sorted by name.
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
      if (beforeFp === afterFp) return []
      const built = after === undefined ? undefined : scope?.files.get(model)
      const builtFp = built === undefined ? null : fingerprintOf(built)
      const asBuilt = builtFp === null || builtFp === afterFp || builtFp === beforeFp ? undefined : built
      return [{ model, before, after, beforeFp, afterFp, asBuilt }]
    })
    // One parser batch for every side of every changed model.
    const items = changed.flatMap((c) => {
      const parseSql = c.after !== undefined && (c.before !== undefined || c.asBuilt !== undefined)
      return [
        ...(c.before === undefined ? [] : [{ model: c.model, files: c.before, parseSql }]),
        ...(c.after === undefined ? [] : [{ model: c.model, files: c.after, parseSql }]),
        ...(c.asBuilt === undefined ? [] : [{ model: c.model, files: c.asBuilt, parseSql: true }])
      ]
    })
    const analyzed = yield* analyzeRevisions(items, env)
    let at = 0
    return changed.map((c): ModelChange => {
      const before = c.before === undefined ? undefined : analyzed[at++]
      const after = c.after === undefined ? undefined : analyzed[at++]
      const asBuilt = c.asBuilt === undefined ? undefined : analyzed[at++]
      const againstBase = changeFindings(before, after)
      // A model the base lacks but a build made is not new: the build is its only before.
      const findings = withScopeFindings(
        asBuilt === undefined ? againstBase : before === undefined ? changeFindings(asBuilt, after) : withBuildFindings(againstBase, changeFindings(asBuilt, after)),
        c.model,
        before,
        after,
        scope
      )
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

/** The findings against the base, then each finding against the last build that they lack (same kind and column), marked so. */
const withBuildFindings = (againstBase: ReadonlyArray<ChangeFinding>, againstBuild: ReadonlyArray<ChangeFinding>): ReadonlyArray<ChangeFinding> => {
  const key = (f: ChangeFinding) => `${f.kind}\u0000${f.column?.toLowerCase() ?? ""}`
  const seen = new Set(againstBase.map(key))
  const extra = againstBuild.filter((f) => !seen.has(key(f))).map((f) => ({ ...f, detail: f.detail === undefined ? "since the last build" : `${f.detail} (since the last build)` }))
  return extra.length === 0 ? againstBase : [...againstBase, ...extra]
}

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
  const extra = scopeAttributeChanges(was, attributesOfRevision(after), scope.reads)
  if (extra.length === 0) return findings
  // A contract removal the diff found already is the same finding: it takes the scope's wording.
  const removal = extra.find((f) => f.kind === "contract_removed")
  const named = removal === undefined ? findings : findings.map((g) => (g.kind === "contract_removed" && g.detail === undefined ? { ...g, detail: removal.detail } : g))
  const diffRemoved = findings.some((g) => g.kind === "contract_removed")
  return [...named, ...extra.filter((f) => !(f.kind === "contract_removed" && diffRemoved))]
}

