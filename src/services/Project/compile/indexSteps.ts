// The compile index's steps that both its readers take: the compile (indexedCompile.ts) and the graph of `audit --for`
// and `review --queue` (indexedGraph.ts), which loads this and not the compile's cached load.
import type * as NodeFs from "node:fs"
import { Effect } from "effect"
import { type DirStamp, fromStoredSummary, noFile, stampWidth, statModels, type StoredSummary } from "../cache/indexRead"
import type { ModelSummary } from "../models"
import type { TableRef } from "../sql"
import { compileSummaries } from "./resolve"

/** The models of a directory by name: a listing, or the index's own when the directory is unchanged. */
export interface Names {
  readonly prefix: string
  readonly names: ReadonlyArray<string>
  readonly hasContract: (i: number) => boolean
}

/** Indexes (in name order) of the models whose files' stamps differ from the index's (a NaN stamp never matches). */
export const changedModels = (models: Names, stamps: Float64Array): Array<number> => {
  const stats = statModels(models.prefix, models.names, models.hasContract)
  const changed: Array<number> = []
  for (let i = 0; i < models.names.length; i++) {
    const at = i * stampWidth
    let same = true
    for (let k = at; k < at + 8 && same; k++) same = stats[k] === stamps[k]
    if (!models.hasContract(i)) same &&= stamps[at + 8] === noFile
    else for (let k = at + 8; k < at + 12 && same; k++) same = stats[k] === stamps[k]
    if (!same) changed.push(i)
  }
  return changed
}

/** The graph of stored summaries (the index's, one per name, in order), compiled as a fresh compile's summaries are. */
export const compileStoredSummaries = (names: ReadonlyArray<string>, stored: ReadonlyArray<StoredSummary>) => {
  const items: Array<{ summary: ModelSummary; definition: ModelSummary }> = new Array(names.length)
  const refs = new Map<string, ReadonlyArray<TableRef>>()
  for (let i = 0; i < names.length; i++) {
    const { refs: modelRefs, summary } = fromStoredSummary(names[i]!, stored[i]!)
    items[i] = { summary, definition: summary }
    refs.set(summary.name, modelRefs)
  }
  return compileSummaries(items, Effect.succeed(refs))
}

export const sameNames = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.length === b.length && a.every((n, i) => n === b[i])

/** The models directory's stamp, if it can be trusted later (it did not change within the racy margin). */
export const dirStampOf = (stat: NodeFs.Stats | undefined, trustBefore: number): DirStamp | null =>
  stat !== undefined && stat.mtimeMs < trustBefore && stat.ctimeMs < trustBefore ? [stat.mtimeMs, stat.ctimeMs, stat.ino] : null

export const sameDir = (a: DirStamp | null, b: DirStamp | null) => a !== null && b !== null && a[0] === b[0] && a[1] === b[1] && a[2] === b[2]

