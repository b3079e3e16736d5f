import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import type { SourceRef, StrategyBlock } from "../../../schemas/model"
import type { ModelSummary } from "../models"
import { contentHash } from "./contentKey"
import { asciiJson, cacheBuild, cacheFileFor, contentHashOfParts, writeStagedParts } from "./shardFile"
import type { TableRef } from "../sql"
import { statsPerModel } from "./modelStats"

/**
 * The compile index: what `pcli compile` needs of a whole project in one file beside the compile
 * cache's shards (`<hash of the models dir>.index`): the model names, each model's file stamps
 * (size, mtime, ctime, inode of its .sql, .toml and .contract.toml, as the shards' stat index),
 * each model's summary and SQL references, and the text the compile rendered from them. A warm
 * compile stats the files and, when no model's summary changed, prints that text: it neither
 * reads the shards nor decodes a sidecar. Like a shard, the file's header names its format, the
 * build and the models directory and carries a digest of everything after it: anything else is
 * ignored and rewritten, never trusted.
 */

const FORMAT = "pcli-compile-index/3"

/** Numbers per model in the stamp column: four per file (.sql, .toml, .contract.toml), as `statModels` gives them. */
export const stampWidth = statsPerModel
/** The size recorded for a model without a contract file (a real size is never negative). */
export const noFile = -1

/** One model's summary and references, as stored: `[catalog, schema, table, strategy, depends_on, sources, layer, contracted, refs, classification]`. */
export type StoredSummary = readonly [
  string,
  string,
  string,
  StrategyBlock,
  ReadonlyArray<string>,
  ReadonlyArray<SourceRef>,
  string | null,
  0 | 1,
  ReadonlyArray<TableRef>,
  Readonly<Record<string, string>>
]

export const toStoredSummary = (summary: ModelSummary, refs: ReadonlyArray<TableRef>): StoredSummary => [
  summary.target.catalog,
  summary.target.schema,
  summary.target.table,
  summary.strategy,
  summary.dependsOn,
  summary.sources,
  summary.layer ?? null,
  summary.contracted ? 1 : 0,
  refs,
  summary.classification
]

export const fromStoredSummary = (name: string, s: StoredSummary): { summary: ModelSummary; refs: ReadonlyArray<TableRef> } => ({
  summary: {
    name,
    target: { catalog: s[0], schema: s[1], table: s[2] },
    strategy: s[3],
    dependsOn: s[4],
    sources: s[5],
    layer: s[6] ?? undefined,
    contracted: s[7] === 1,
    classification: s[9]
  },
  refs: s[8]
})

/** The index as read: names and stamps at once; summaries parsed only when a model changed. */
export interface CompileIndex {
  readonly names: ReadonlyArray<string>
  /** `stampWidth` numbers per model, in `names` order (NaN: not trusted, read again). */
  readonly stamps: Float64Array
  /** What the rendered text depends on besides the models (e.g. the models directory as printed). */
  readonly renderKey: string
  /** The models directory's [mtimeMs, ctimeMs, ino] when the index was written, if trusted: while it holds, no entry was added, removed or renamed. */
  readonly dirStamp: DirStamp | null
  readonly summaries: () => ReadonlyArray<StoredSummary> | undefined
  /** Model `i`'s summary as its stored JSON text (what `asciiJson` of it writes), without parsing the others. */
  readonly summaryText: (i: number) => string
  /** The summaries as stored, to write again unchanged. */
  readonly summaryTexts: SummaryTexts
  /** The rendered text's bytes. */
  readonly text: () => Uint8Array
}

/**
 * The summaries section: `[s0,s1,…]` (each `asciiJson` of a `StoredSummary`), with where each
 * summary starts (`offsets[i]`; summary i ends one byte before `offsets[i + 1]`, at its comma or
 * the closing bracket).
 */
export interface SummaryTexts {
  readonly bytes: Uint8Array
  readonly offsets: Uint32Array
}

/** The summaries section of these summaries. */
const summaryTextsOf = (summaries: ReadonlyArray<StoredSummary>): SummaryTexts => {
  const offsets = new Uint32Array(summaries.length + 1)
  let json = "["
  for (let i = 0; i < summaries.length; i++) {
    if (i > 0) json += ","
    offsets[i] = json.length
    json += asciiJson(summaries[i])
  }
  json += "]"
  offsets[summaries.length] = json.length
  return { bytes: Buffer.from(json, "latin1"), offsets }
}

export type DirStamp = readonly [number, number, number]

interface Header {
  readonly format: string
  readonly build: string
  readonly modelsDir: string
  readonly renderKey: string
  readonly dirStamp: DirStamp | null
  /** Byte lengths of the names, stamps, summaries, summary offsets and text sections, in that order. */
  readonly sections: readonly [number, number, number, number, number]
  readonly digest: string
}

export const indexFileFor = (modelsDir: string): string => cacheFileFor(modelsDir, 0).replace(/\.00\.json$/, ".index")

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Reads the index; undefined when it is absent, torn, edited, or another build's or directory's. */
export const readIndex = (modelsDir: string): CompileIndex | undefined => {
  let bytes: Buffer
  try {
    bytes = NodeFs.readFileSync(indexFileFor(modelsDir))
  } catch {
    return undefined
  }
  try {
    const newline = bytes.indexOf(10)
    if (newline === -1) return undefined
    const header = JSON.parse(bytes.toString("latin1", 0, newline)) as unknown
    if (!isRecord(header) || header["format"] !== FORMAT || header["build"] !== cacheBuild) return undefined
    if (header["modelsDir"] !== NodePath.resolve(modelsDir) || typeof header["renderKey"] !== "string") return undefined
    const dirStamp = header["dirStamp"]
    if (dirStamp !== null && !(Array.isArray(dirStamp) && dirStamp.length === 3 && dirStamp.every((n) => typeof n === "number"))) {
      return undefined
    }
    const sections = header["sections"]
    if (!Array.isArray(sections) || sections.length !== 5 || !sections.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined
    const [namesLength, stampsLength, summariesLength, offsetsLength, textLength] = sections as [number, number, number, number, number]
    const body = bytes.subarray(newline + 1)
    if (body.length !== namesLength + stampsLength + summariesLength + offsetsLength + textLength) return undefined
    if (header["digest"] !== contentHash(body)) return undefined
    const names = JSON.parse(body.toString("latin1", 0, namesLength)) as unknown
    if (!Array.isArray(names) || !names.every((n) => typeof n === "string")) return undefined
    if (stampsLength !== names.length * stampWidth * 8 || offsetsLength !== (names.length + 1) * 4) return undefined
    // Copied out: typed arrays need an aligned start (8 bytes for the stamps, 4 for the offsets).
    const stamps = new Float64Array(names.length * stampWidth)
    new Uint8Array(stamps.buffer).set(body.subarray(namesLength, namesLength + stampsLength))
    const summariesStart = namesLength + stampsLength
    const offsetsStart = summariesStart + summariesLength
    const textStart = offsetsStart + offsetsLength
    const offsets = new Uint32Array(names.length + 1)
    new Uint8Array(offsets.buffer).set(body.subarray(offsetsStart, textStart))
    if (offsets[names.length] !== summariesLength) return undefined
    for (let i = 0; i < names.length; i++) if (!(offsets[i]! < offsets[i + 1]!)) return undefined
    const summaryBytes = body.subarray(summariesStart, offsetsStart)
    return {
      names: names as Array<string>,
      stamps,
      renderKey: header["renderKey"],
      dirStamp: dirStamp as DirStamp | null,
      summaries: () => {
        const parsed = JSON.parse(summaryBytes.toString("latin1")) as unknown
        return Array.isArray(parsed) && parsed.length === names.length && parsed.every((s) => Array.isArray(s) && s.length === 10)
          ? (parsed as Array<StoredSummary>)
          : undefined
      },
      summaryText: (i) => summaryBytes.toString("latin1", offsets[i], offsets[i + 1]! - 1),
      summaryTexts: { bytes: summaryBytes, offsets },
      text: () => body.subarray(textStart, textStart + textLength)
    }
  } catch {
    return undefined
  }
}

/** Writes the index (best effort, not fsynced, staged and renamed: a torn file fails its digest), section by section. */
export const writeIndex = (
  modelsDir: string,
  index: {
    readonly names: ReadonlyArray<string>
    readonly stamps: Float64Array
    readonly summaries: ReadonlyArray<StoredSummary> | SummaryTexts
    readonly renderKey: string
    readonly dirStamp: DirStamp | null
    readonly text: string | Uint8Array
  }
): void => {
  const file = indexFileFor(modelsDir)
  try {
    const names = Buffer.from(asciiJson(index.names), "latin1")
    const stamps = Buffer.from(index.stamps.buffer, index.stamps.byteOffset, index.stamps.byteLength)
    const stored = "offsets" in index.summaries ? index.summaries : summaryTextsOf(index.summaries)
    const summaries = stored.bytes
    const offsets = Buffer.from(stored.offsets.buffer, stored.offsets.byteOffset, stored.offsets.byteLength)
    const text = typeof index.text === "string" ? Buffer.from(index.text, "utf8") : index.text
    const header: Header = {
      format: FORMAT,
      build: cacheBuild,
      modelsDir: NodePath.resolve(modelsDir),
      renderKey: index.renderKey,
      dirStamp: index.dirStamp,
      sections: [names.length, stamps.length, summaries.length, offsets.length, text.length],
      digest: contentHashOfParts([names, stamps, summaries, offsets, text])
    }
    NodeFs.mkdirSync(NodePath.dirname(file), { recursive: true })
    writeStagedParts(file, [Buffer.from(`${asciiJson(header)}\n`, "latin1"), names, stamps, summaries, offsets, text])
  } catch {
    // Best effort: an index left unwritten means the next compile takes the whole path.
  }
}
