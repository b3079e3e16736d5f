import { Effect } from "effect"
import { InvalidPartitionWindow, quoteArg } from "../Project/errors"
import { parsePartitionKey, partitionKeyFormat } from "../Project/partitionKeys"
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
/** A window's keys must parse at each partitioned member's granularity, --from <= --to, as `run` checks them. */
export const checkPartitionWindow = (project: CompiledProject, models: ReadonlyArray<string>, window: { readonly from: string; readonly to: string }): Effect.Effect<void, InvalidPartitionWindow> =>
  Effect.forEach(models, (name) => {
    const strategy = project.models.get(name)?.strategy
    if (strategy?.type !== "time_interval") return Effect.void
    const { granularity } = strategy
    for (const [flag, key] of [["--from", window.from], ["--to", window.to]] as const) {
      if (parsePartitionKey(key, granularity) === undefined) {
        return Effect.fail(new InvalidPartitionWindow({ ...window, detail: `${flag} ${quoteArg(key)} is not a ${granularity} partition key (${partitionKeyFormat[granularity]}) of model ${name}` }))
      }
    }
    return parsePartitionKey(window.to, granularity)! < parsePartitionKey(window.from, granularity)! ? Effect.fail(new InvalidPartitionWindow({ ...window, detail: "--to is before --from" })) : Effect.void
  }, { discard: true })

export const partitionedMembers = (project: CompiledProject, models: ReadonlyArray<string>) =>
  models.filter((m) => project.models.get(m)?.strategy.type === "time_interval")

/** Re-running an incremental model is an unguarded append: say so in the plan. */
export const appendWarnings = (project: CompiledProject, models: ReadonlyArray<string>) =>
  models.flatMap((m) =>
    project.models.get(m)?.strategy.type === "incremental"
      ? [`${m} is incremental: a backfill re-runs its append, rows newer than its high-water mark are inserted again only if the source re-emits them`]
      : []
  )
