import type { CompiledProject } from "../Project/compile"
import { downstreamClosure } from "../Project/compile"

/** Seeds plus (unless `noDownstream`) their transitive downstream, in project order. */
export const closureOf = (project: CompiledProject, seeds: ReadonlyArray<string>, noDownstream: boolean): ReadonlyArray<string> => {
  const set = new Set(seeds)
  if (!noDownstream) for (const seed of seeds) for (const d of downstreamClosure(project, seed)) set.add(d)
  return project.order.filter((m) => set.has(m))
}

/**
 * Layers by longest path over intra-closure edges only: an upstream outside the set imposes
 * nothing (it is not rebuilt). Alphabetical within a layer.
 */
export const layersOf = (project: CompiledProject, models: ReadonlyArray<string>): ReadonlyArray<ReadonlyArray<string>> => {
  const inSet = new Set(models)
  const depth = new Map<string, number>()
  for (const m of models) {
    const ups = (project.models.get(m)?.upstream ?? []).filter((u) => inSet.has(u))
    depth.set(m, ups.reduce((d, u) => Math.max(d, (depth.get(u) ?? 0) + 1), 0))
  }
  const layers: Array<Array<string>> = []
  for (const m of models) (layers[depth.get(m)!] ??= []).push(m)
  return layers.map((l) => [...l].sort())
}

/** Models a window applies to: time_interval members of the closure. */
export const partitionedMembers = (project: CompiledProject, models: ReadonlyArray<string>) =>
  models.filter((m) => project.models.get(m)?.strategy.type === "time_interval")

/** Re-running an incremental model is an unguarded append: say so in the plan. */
export const appendWarnings = (project: CompiledProject, models: ReadonlyArray<string>) =>
  models.flatMap((m) =>
    project.models.get(m)?.strategy.type === "incremental"
      ? [`${m} is incremental: a backfill re-runs its append, rows newer than its high-water mark are inserted again only if the source re-emits them`]
      : []
  )
