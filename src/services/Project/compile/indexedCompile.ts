import { type FileSystem, Path } from "@effect/platform"
import * as NodeFs from "node:fs"
import { Effect, Either } from "effect"
import {
  asciiJson,
  type CachedLoad,
  CompileCacheWrites,
  type CompileIndex,
  type DirStamp,
  loadWithCache,
  noFile,
  racyMarginMs,
  readIndex,
  spawnReadAhead,
  type SpawnedReadAhead,
  stampWidth,
  type StoredSummary,
  type SummaryTexts,
  toStoredSummary,
  writeIndex
} from "../cache"
import type { CompiledProject, CompileError } from "./compile"
import { changedModels, compileStoredSummaries, dirStampOf, type Names, sameDir, sameNames } from "./indexSteps"
import { compileListingSummaries } from "./load"
import { joinInDir, listModels, type LoadModelsOptions, type ModelListing, summaryOf } from "../models"

/** What a compile renders: the project (its models carry their summary or their full definition). */
export type Render = (project: CompiledProject<unknown>) => Effect.Effect<string | Uint8Array>

const utf8 = (text: string | Uint8Array): Uint8Array => (typeof text === "string" ? Buffer.from(text, "utf8") : text)

const suffixes = [".sql", ".toml", ".contract.toml"] as const

/** Model `i`'s row of stamps as `load` recorded them (NaN where it recorded none: read again next time). */
const putRow = (stamps: Float64Array, i: number, name: string, hasContract: boolean, load: CachedLoad<unknown>) => {
  for (let f = 0; f < suffixes.length; f++) {
    const at = i * stampWidth + 4 * f
    const stamp = f === 2 && !hasContract ? undefined : load.stampOf(name, suffixes[f]!)
    stamps[at] = f === 2 && !hasContract ? noFile : (stamp?.[0] ?? Number.NaN)
    stamps[at + 1] = stamp?.[1] ?? Number.NaN
    stamps[at + 2] = stamp?.[2] ?? Number.NaN
    stamps[at + 3] = stamp?.[3] ?? Number.NaN
  }
}

/**
 * From what size of the models directory itself a compile without an index starts its read-ahead
 * worker before listing it: the worker's start-up (~100 ms) then overlaps the listing. A hint only
 * (ext4 gives ~24 bytes an entry, so about 5,000 files; other file systems may say less, and the
 * worker then starts after the listing, as for every other load).
 */
export const earlyReadAheadDirBytes = 128 * 1024

/**
 * The index path: stat every model's files; re-read (through the shards of those models only) the
 * models whose stamps changed; give the index's text when every summary is as before, else
 * compile the summaries. Undefined whenever anything fails or looks unusual: the whole path then
 * runs and reports exactly what it always reported.
 */
const fromIndex = (
  options: LoadModelsOptions,
  models: Names,
  index: CompileIndex,
  renderKey: string,
  render: Render,
  dirStamp: DirStamp | null,
  writes: boolean
): Effect.Effect<string | Uint8Array | undefined, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const changed = changedModels(models, index.stamps)
    if (changed.length === 0 && index.renderKey === renderKey) {
      if (writes && !sameDir(dirStamp, index.dirStamp) && dirStamp !== null) {
        writeIndex(options.modelsDir, { ...index, summaries: index.summaryTexts, dirStamp, text: index.text() })
      }
      return index.text()
    }
    const at = (i: number, suffix: string) => `${models.prefix}${models.names[i]!}${suffix}`
    const sub: ModelListing = {
      prefix: models.prefix,
      names: changed.map((i) => models.names[i]!),
      sqlPaths: changed.map((i) => at(i, ".sql")),
      sidecarPaths: changed.map((i) => at(i, ".toml")),
      contractPaths: changed.map((i) => (models.hasContract(i) ? at(i, ".contract.toml") : undefined))
    }
    const load = yield* Effect.either(loadWithCache(options, sub, "listed"))
    if (Either.isLeft(load) || Either.isLeft(load.right.definitions) || Either.isLeft(load.right.parsed)) return undefined
    const definitions = load.right.definitions.right
    const parsed = load.right.parsed.right
    const nexts = changed.map((_, j) => toStoredSummary(summaryOf(definitions[j]!), parsed.get(sub.names[j]!) ?? []))
    // Each changed model's summary against its stored text: the other 10,000 are parsed only when one differs.
    const same = index.renderKey === renderKey && changed.every((i, j) => asciiJson(nexts[j]) === index.summaryText(i))
    let summaries: ReadonlyArray<StoredSummary> | SummaryTexts = index.summaryTexts
    let text: string | Uint8Array
    if (same) text = index.text()
    else {
      const stored = index.summaries()
      if (stored === undefined) return undefined
      const changedSummaries = stored.slice()
      for (let j = 0; j < changed.length; j++) changedSummaries[changed[j]!] = nexts[j]!
      summaries = changedSummaries
      const project = yield* Effect.either(compileStoredSummaries(models.names, changedSummaries))
      if (Either.isLeft(project)) return undefined
      text = utf8(yield* render(project.right))
    }
    if (writes) {
      yield* yield* load.right.save
      const stamps = index.stamps.slice()
      let trusted = false
      for (let j = 0; j < changed.length; j++) {
        const at = changed[j]! * stampWidth
        putRow(stamps, changed[j]!, sub.names[j]!, sub.contractPaths[j] !== undefined, load.right)
        for (let k = at; k < at + stampWidth; k++) trusted ||= !Number.isNaN(stamps[k]!) && stamps[k] !== index.stamps[k]
      }
      // Only a newly trusted stamp is worth writing: an untrusted one (a file just written) mismatches next time as the old one would.
      if (!same || !sameDir(dirStamp, index.dirStamp) || trusted) {
        writeIndex(options.modelsDir, { names: models.names, stamps, summaries, renderKey, dirStamp, text })
      }
    }
    return text
  })

/** The whole path (`loadAndCompile`), then the index written from what it read. */
const whole = (
  options: LoadModelsOptions,
  listing: ModelListing,
  renderKey: string,
  render: Render,
  dirStamp: DirStamp | null,
  writes: boolean,
  spawned: SpawnedReadAhead | undefined
): Effect.Effect<Uint8Array, CompileError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    let load: CachedLoad<unknown> | undefined
    let saved: Effect.Effect<void> = Effect.void
    // The shards are written (by the read-ahead worker, where one ran) while this renders and writes the index.
    // Summaries alone: what the rendering and the index need (a sidecar the worker decoded is not parsed here).
    const project = yield* compileListingSummaries(
      { ...options, readAhead: spawned === undefined ? undefined : { spawned }, onLoaded: (_, loaded) => (load = loaded), onSaving: (wait) => (saved = wait) },
      listing
    )
    // Encoded once: the same bytes go to the index and to the output.
    const text = utf8(yield* render(project))
    if (writes && load !== undefined) {
      const stamps = new Float64Array(listing.names.length * stampWidth)
      const summaries: Array<StoredSummary> = new Array(listing.names.length)
      for (let i = 0; i < listing.names.length; i++) {
        const name = listing.names[i]!
        const model = project.models.get(name)!
        putRow(stamps, i, name, listing.contractPaths[i] !== undefined, load)
        summaries[i] = toStoredSummary(model.definition, model.sqlRefs)
      }
      writeIndex(options.modelsDir, { names: listing.names, stamps, summaries, renderKey, dirStamp, text })
    }
    yield* saved
    return text
  })

/**
 * Compiles a models directory and renders it through the compile index (compileIndex.ts): the
 * bytes are those of `render` of what `loadAndCompile` compiles, with the same errors.
 * `renderKey` names what the rendering depends on besides the models. While the models
 * directory keeps the stamp the index recorded (no entry added, removed or renamed since), its
 * names stand for the directory's listing and the directory is not read.
 */
export const compileRendered = (
  options: LoadModelsOptions,
  renderKey: string,
  render: Render
): Effect.Effect<string | Uint8Array, CompileError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const writes = yield* CompileCacheWrites
    // Taken before the directory is listed: an entry added after it changes the stamp the next compile sees.
    const dirStat = NodeFs.statSync(options.modelsDir, { throwIfNoEntry: false })
    const dirStamp = dirStampOf(dirStat, Date.now() - (options.racyMarginMs ?? racyMarginMs))
    const index = readIndex(options.modelsDir)
    // No index: the whole path runs; a large one reads ahead on a worker, started now.
    const spawned = index === undefined && dirStat !== undefined && dirStat.size >= earlyReadAheadDirBytes ? spawnReadAhead() : undefined
    return yield* Effect.ensuring(
      renderedWith(options, renderKey, render, writes, dirStamp, index, spawned),
      Effect.sync(() => spawned?.release())
    )
  })

/** `compileRendered` once the directory is stat-ed and the index read: the index path where it can, else the whole path. */
const renderedWith = (
  options: LoadModelsOptions,
  renderKey: string,
  render: Render,
  writes: boolean,
  dirStamp: DirStamp | null,
  index: CompileIndex | undefined,
  spawned: SpawnedReadAhead | undefined
): Effect.Effect<string | Uint8Array, CompileError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const dirUnchanged = index !== undefined && sameDir(dirStamp, index.dirStamp)
    if (index !== undefined && dirUnchanged) {
      const models: Names = {
        prefix: joinInDir(yield* Path.Path, options.modelsDir)(""),
        names: index.names,
        hasContract: (i) => index.stamps[i * stampWidth + 8] !== noFile
      }
      const text = yield* fromIndex(options, models, index, renderKey, render, dirStamp, writes)
      if (text !== undefined) return text
    }
    const listing = yield* listModels(options)
    // (Tried once already when the directory was unchanged: what failed there fails again.)
    if (index !== undefined && !dirUnchanged && sameNames(index.names, listing.names)) {
      const models: Names = { ...listing, hasContract: (i) => listing.contractPaths[i] !== undefined }
      const text = yield* fromIndex(options, models, index, renderKey, render, dirStamp, writes)
      if (text !== undefined) return text
    }
    return yield* whole(options, listing, renderKey, render, dirStamp, writes, spawned)
  })
