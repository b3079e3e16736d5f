import { Effect } from "effect"
import type { CompiledProject } from "../Project/compile"
import { Warehouse } from "../Warehouse/Warehouse"
import { fingerprintOf, relationKey, sameInputs } from "./incremental"
import { type BuildState, RunStore } from "./RunStore"
import type { RunOptions } from "./runOptions"
import { checkSelection } from "./selection"

/**
 * Whether a run will leave every selected model `unchanged` by what the state store and the
 * warehouse's catalog snapshot say, the runner's own reuse rule (`decide` in run.ts) with every
 * upstream at its recorded data version: reuse asked, no window, no declared source (its data
 * version is read from the warehouse), the fingerprint of the last build, its table present, the
 * same inputs. Such a run never needs the warehouse (decisions.md "The no-op run never opens DuckDB").
 */
export const reusesEverything = (
  project: CompiledProject,
  layers: ReadonlyArray<ReadonlyArray<string>>,
  options: Pick<RunOptions, "reuse" | "partition">,
  states: ReadonlyMap<string, BuildState>,
  relations: ReadonlySet<string> | undefined
): boolean => reusableByState(project, layers, options, states) && tablesPresent(project, layers, relations)

/** The part of `reusesEverything` the state store alone answers (no catalog needed). */
export const reusableByState = (
  project: CompiledProject,
  layers: ReadonlyArray<ReadonlyArray<string>>,
  options: Pick<RunOptions, "reuse" | "partition">,
  states: ReadonlyMap<string, BuildState>
): boolean => {
  if (options.reuse !== true || options.partition !== undefined) return false
  return layers.every((layer) =>
    layer.every((name) => {
      const model = project.models.get(name)
      const previous = states.get(name)
      if (model === undefined || previous === undefined || model.sourceRefs.length > 0) return false
      if (previous.fingerprint !== fingerprintOf(model)) return false
      const inputs: Record<string, string> = {}
      for (const u of model.upstream) inputs[u] = states.get(u)?.data_version ?? "none"
      return sameInputs(previous.inputs, inputs)
    })
  )
}

/** Every selected model's table is among the warehouse's relations (false when it cannot say). */
export const tablesPresent = (
  project: CompiledProject,
  layers: ReadonlyArray<ReadonlyArray<string>>,
  relations: ReadonlySet<string> | undefined
): boolean =>
  relations !== undefined &&
  layers.every((layer) =>
    layer.every((name) => {
      const model = project.models.get(name)
      return model !== undefined && relations.has(relationKey(model))
    })
  )

/**
 * Opens the warehouse unless the run provably reuses every model: a warehouse that opens on
 * first use then reports a held lock before any model starts, as one opened up front does.
 * Returns the builds it read (or was given), for the run to use rather than read them again, and
 * whether the warehouse is open (a remote one always is): only then can the run change it.
 */
export const openUnlessReused = (project: CompiledProject, options: RunOptions, read?: ReadonlyMap<string, BuildState>) =>
  Effect.gen(function* () {
    const wh = yield* Warehouse
    if (wh.open === undefined) return { states: read, opened: true }
    const { layers } = yield* checkSelection(project, options)
    const states = read ?? (yield* (yield* RunStore).buildStates)
    const relations = wh.knownRelations === undefined ? undefined : yield* wh.knownRelations
    const opened = !reusesEverything(project, layers, options, states, relations)
    if (opened) yield* wh.open
    return { states, opened }
  })
