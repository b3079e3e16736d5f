import { Data, Effect } from "effect"
import { selectModels } from "../services/Project/select"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { compiledProject } from "./compile"

/** `--select` on run, plan or test matched no model: doing nothing silently, or everything, would both mislead. */
export class SelectionEmpty extends Data.TaggedError("SelectionEmpty")<{ readonly select: ReadonlyArray<string> }> {
  readonly code = "selection-empty"
  override get message() {
    return `--select ${this.select.map((s) => JSON.stringify(s)).join(" ")} matches no model (pcli ls --select shows what a selector picks)`
  }
}

/**
 * The models `run` and `plan` act on: the `--model` names united with what `--select` picks, in
 * execution order (`--select` alone never means "every model"). Without `--select`, `--model` as given.
 */
export const selectedModels = (named: ReadonlyArray<string>, select: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    if (select.length === 0) return named
    const { root } = yield* ProjectContext
    const project = yield* compiledProject
    const picked = yield* selectModels(project, root, select)
    if (picked.length === 0) return yield* new SelectionEmpty({ select })
    return [...new Set([...named, ...picked])]
  })
