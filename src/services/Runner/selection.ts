import { Data, Effect } from "effect"
import type { CompiledProject } from "../Project/compile"
import { InvalidPartitionWindow, quoteArg } from "../Project/errors"
import { parsePartitionKey, partitionKeyFormat } from "../Project/partitionKeys"

/** `--model` names models the project does not have; nothing ran. */
export class ModelsNotFound extends Data.TaggedError("ModelsNotFound")<{
  readonly models: ReadonlyArray<string>
}> {
  readonly code = "model-not-found"
  override get message() {
    const quoted = this.models.slice(0, 5).map(quoteArg).join(", ") + (this.models.length > 5 ? `, and ${this.models.length - 5} more` : "")
    return this.models.length === 1
      ? `model ${quoted} not found in the project`
      : `models ${quoted} not found in the project`
  }
}

/** A `--from/--to` window where no selected model is partitioned: it would be silently ignored. */
export class WindowNeedsPartitionedModel extends Data.TaggedError("WindowNeedsPartitionedModel")<{
  readonly from: string
  readonly to: string
  readonly models: ReadonlyArray<string>
}> {
  readonly code = "window-needs-partitioned-model"
  override get message() {
    const shown = this.models.slice(0, 5).join(", ") + (this.models.length > 5 ? `, and ${this.models.length - 5} more` : "")
    return this.models.length === 0
      ? `--from ${quoteArg(this.from)} --to ${quoteArg(this.to)} selects partitions, but the project has no models`
      : `--from ${quoteArg(this.from)} --to ${quoteArg(this.to)} selects partitions, but none of the selected models is partitioned (time_interval): ${shown}`
  }
}

export type SelectionError = ModelsNotFound | InvalidPartitionWindow | WindowNeedsPartitionedModel

export interface RunSelection {
  /** Selected models by execution layer, empty layers dropped. */
  readonly layers: ReadonlyArray<ReadonlyArray<string>>
}

/**
 * Checks what a run was asked to do before it does any of it: every `--model` exists, and a
 * window is a valid, ordered range of canonical partition keys for every selected partitioned
 * model (at least one of which must be selected).
 */
export const checkSelection = (
  project: CompiledProject,
  options: {
    readonly models?: ReadonlyArray<string> | undefined
    readonly partition?: { readonly from: string; readonly to: string } | undefined
  }
): Effect.Effect<RunSelection, SelectionError> =>
  Effect.gen(function* () {
    const requested = options.models === undefined ? undefined : [...new Set(options.models)]
    const unknown = (requested ?? []).filter((m) => !project.models.has(m))
    if (unknown.length > 0) return yield* new ModelsNotFound({ models: unknown })
    const selected = requested === undefined ? undefined : new Set(requested)
    const layers = project.layers
      .map((layer) => layer.filter((m) => selected === undefined || selected.has(m)))
      .filter((layer) => layer.length > 0)
    const window = options.partition
    if (window !== undefined) {
      const names = layers.flat()
      const partitioned = names.flatMap((name) => {
        const strategy = project.models.get(name)?.strategy
        return strategy?.type === "time_interval" ? [{ name, granularity: strategy.granularity }] : []
      })
      if (partitioned.length === 0) {
        return yield* new WindowNeedsPartitionedModel({ from: window.from, to: window.to, models: names })
      }
      for (const { name, granularity } of partitioned) {
        for (const [flag, key] of [["--from", window.from], ["--to", window.to]] as const) {
          if (parsePartitionKey(key, granularity) === undefined) {
            return yield* new InvalidPartitionWindow({
              ...window,
              detail: `${flag} ${quoteArg(key)} is not a ${granularity} partition key (${partitionKeyFormat[granularity]}) of model ${name}`
            })
          }
        }
        if (parsePartitionKey(window.to, granularity)! < parsePartitionKey(window.from, granularity)!) {
          return yield* new InvalidPartitionWindow({ ...window, detail: "--to is before --from" })
        }
      }
    }
    return { layers }
  })
