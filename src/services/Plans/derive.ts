import type { CommandExecutor } from "@effect/platform"
import { Effect } from "effect"
import type { PlanBase, RunPayload } from "../../schemas/plans"
import { closureOf, layersOf } from "../Backfill/compose"
import type { CompiledProject } from "../Project/compile"
import type { StatementFailed } from "../Warehouse/Warehouse"
import { AppliedState, appliedRevision } from "./AppliedState"
import { diffRevisions } from "./diff"
import type { BuiltContext } from "./scopeChange"
import type { AppliedStateIo, GitFailed } from "./errors"
import { readTreeAt } from "./git"
import { fingerprintOf, readWorkingTree, type Revision } from "./revisions"

/**
 * What a plan records is derived here, once: `pcli plan` writes it and `pcli apply` derives it
 * again from the working tree and compares (issue 32 item 3), so the two can never disagree
 * on how a change is classified or which models it rebuilds.
 */

/** Seeds plus every model downstream of them, in one pass over the graph. */
const withDownstream = (project: CompiledProject, seeds: Iterable<string>): Set<string> => {
  const seen = new Set<string>()
  const stack = [...seeds]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (seen.has(node)) continue
    seen.add(node)
    for (const child of project.downstream.get(node) ?? []) stack.push(child)
  }
  return seen
}

/** Each named model's content fingerprint in `working`, null when absent; keys sorted. */
export const fingerprintsOf = (working: Revision, models: Iterable<string>): Record<string, string | null> => {
  const out: Record<string, string | null> = {}
  for (const model of [...new Set(models)].sort()) {
    const files = working.get(model)
    out[model] = files === undefined ? null : fingerprintOf(files)
  }
  return out
}

/** The revision a plan's base names: the last applied state, or the recorded git commit. */
export const revisionAtBase = (
  modelsDir: string,
  base: PlanBase
): Effect.Effect<Revision, AppliedStateIo | GitFailed, AppliedState | CommandExecutor.CommandExecutor> =>
  base.kind === "applied"
    ? Effect.map(Effect.flatMap(AppliedState, (a) => a.read), appliedRevision)
    : readTreeAt(modelsDir, base.commit)

/**
 * A run-like plan's payload: every model among the seeds and their downstream that differs from
 * the base is a direct change with its own class (a changed downstream is never waved through
 * as `value_change`); apply rebuilds the present changes and their downstream, in project order.
 */
export const deriveRunPayload = (input: {
  readonly base: PlanBase
  readonly baseRevision: Revision
  readonly working: Revision
  readonly project: CompiledProject
  readonly seeds: Iterable<string>
  readonly env: Readonly<Record<string, string | undefined>>
  /** What each model was last built under: scope attribute changes since then are breaking. */
  readonly built?: BuiltContext | undefined
}): Effect.Effect<RunPayload, StatementFailed> =>
  Effect.gen(function* () {
    const candidates = withDownstream(input.project, input.seeds)
    const changes = yield* diffRevisions(input.baseRevision, input.working, candidates, input.env, input.built)
    const touched = withDownstream(input.project, changes.filter((c) => c.after !== null).map((c) => c.model))
    const models = input.project.order.filter((m) => touched.has(m))
    const removed = changes.filter((c) => c.after === null).map((c) => c.model)
    return { base: input.base, changes, models, fingerprints: fingerprintsOf(input.working, [...models, ...removed]) }
  })

/** A backfill's scope: the seeds' closure (unless `noDownstream`) and its execution layers. */
export const deriveBackfillScope = (project: CompiledProject, seeds: ReadonlyArray<string>, noDownstream: boolean) => {
  const layers = layersOf(project, closureOf(project, seeds, noDownstream))
  return { layers, models: layers.flat() }
}

/** The working-tree fingerprints of the models a gc or restore plan names. */
export const workingFingerprints = (modelsDir: string, models: ReadonlyArray<string>) =>
  Effect.map(readWorkingTree(modelsDir, new Set(models)), (working) => fingerprintsOf(working, models))
