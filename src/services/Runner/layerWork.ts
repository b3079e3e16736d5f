import type { Granularity } from "../../schemas/model"
import type { CompiledModel } from "../Project/compile"
import { partitionsBetween } from "./partitions"
import type { PartitionOptions } from "./strategies"

/** The layers without their first `n` models (in layer order), empty layers dropped. */
export const withoutFirst = (layers: ReadonlyArray<ReadonlyArray<string>>, n: number) => {
  let skip = n
  const rest: Array<ReadonlyArray<string>> = []
  for (const layer of layers) {
    const left = layer.slice(Math.min(skip, layer.length))
    skip = Math.max(0, skip - layer.length)
    if (left.length > 0) rest.push(left)
  }
  return rest
}

export const countIntervals = (windows: ReadonlyArray<PartitionOptions>, model: CompiledModel) =>
  model.strategy.type === "time_interval"
    ? windows.reduce((n, w) => n + (partitionsBetween(w.from, w.to, (model.strategy as { granularity: Granularity }).granularity)?.length ?? 0), 0)
    : 0

