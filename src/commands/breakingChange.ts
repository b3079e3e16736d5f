import { Effect } from "effect"
import type { BreakingChangeOutput } from "../schemas/lineage"
import { Environment } from "../services/Environment/Environment"
import { breakingFindings, diffRevisions } from "../services/Plans/diff"
import { readTreeAt, resolveCommit } from "../services/Plans/git"
import { builtContext } from "../services/Plans/scopeChange"
import { readWorkingTree } from "../services/Plans/revisions"
import { ModelNotFound } from "../services/PolicyEngine/attributes"
import { downstreamClosure } from "../services/Project/compile"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { compiledProject } from "./compile"

export interface BreakingChangeInput {
  readonly model: string
  /** Git ref to compare the working tree against (default HEAD, as `pcli review`). */
  readonly base: string
}

/** MCP `breaking_change`: the model's working-tree files against a git ref, classified as `pcli plan` classifies them. */
export const breakingChange = (input: BreakingChangeInput) =>
  Effect.gen(function* () {
    const { modelsDir } = yield* ProjectContext
    const env = yield* Environment
    const commit = yield* resolveCommit(modelsDir, input.base)
    const base = yield* readTreeAt(modelsDir, commit)
    const working = yield* readWorkingTree(modelsDir, new Set([input.model]))
    if (!base.has(input.model) && !working.has(input.model)) return yield* new ModelNotFound({ model: input.model, modelsDir })
    // Classified as `pcli plan` classifies it: scope attribute changes since the last build are breaking too.
    const [change] = yield* diffRevisions(base, working, [input.model], env, yield* builtContext)
    const project = yield* compiledProject
    const downstream = new Set(downstreamClosure(project, input.model))
    return {
      command: "breaking_change",
      model: input.model,
      base: { ref: input.base, commit },
      changed: change !== undefined,
      change_class: change?.change_class ?? null,
      breaking: change === undefined ? false : breakingFindings([change]).length > 0 || change.change_class === "schema_change.breaking",
      findings: [...(change?.findings ?? [])],
      downstream_closure: project.order.filter((n) => downstream.has(n))
    } satisfies BreakingChangeOutput
  })
