import * as Toml from "smol-toml"
import type { ModelSidecar, SourceRef, StrategyBlock, TargetBlock } from "../../../schemas/model"
import { fastDecodeContract, fastDecodeSidecar } from "../sidecarFast"
import { fastToml } from "../tomlFast"
import { fastTableReferences, parseableSql, type TableRef } from "../sql"

// What a compile derives from one model file's text on its fast paths: pure functions of the text,
// run where the file was read (this thread or the read-ahead worker, readAhead.ts).

/** What a file is to the compile. */
export const FileKind = { sql: 0, sidecar: 1, contract: 2 } as const
export type FileKind = (typeof FileKind)[keyof typeof FileKind]

/**
 * Decodes a sidecar/contract text on the fast path only; undefined sends it through `decodeModel`.
 * The text is read by the subset reader (`tomlFast.ts`) where it can, else by smol-toml.
 * No nesting check (the plain decoder's `tooDeep`): the fast decoders accept only shapes a few
 * levels deep and decline anything deeper (a property test holds them to it).
 */
export const quickDecode = <A>(fast: (data: unknown) => A | undefined, text: string): A | undefined => {
  let data: unknown
  try {
    data = fastToml(text) ?? Toml.parse(text)
  } catch {
    return undefined
  }
  return fast(data)
}

/** The tables a model's SQL reads, by the fast reader (undefined: only DuckDB's parser can tell). */
export const quickReferences = (text: string): ReadonlyArray<TableRef> | undefined => fastTableReferences(parseableSql(text))

/** The fast path's result for a file of `kind`: its SQL's tables, or its decoded sidecar/contract. */
export const fileWork = (kind: FileKind, text: string): unknown =>
  kind === FileKind.sql
    ? quickReferences(text)
    : text.includes("${")
      ? undefined // depends on the environment: decoded by the plain decoder, where it is read
      : kind === FileKind.sidecar
        ? quickDecode(fastDecodeSidecar, text)
        : quickDecode(fastDecodeContract, text)

/** Whether a kind's `fileWork`, when it decodes, gives a JSON value: the fast decoders build only those (sidecarFast.ts). */
export const workIsJson = (kind: FileKind): boolean => kind !== FileKind.sql

/**
 * What `pcli compile` needs of a sidecar (its `ModelSummary` but `contracted`):
 * `[name, target, strategy, depends_on, sources, layer tag or null, classification]`.
 */
export type SidecarSummary = readonly [
  string,
  TargetBlock,
  StrategyBlock,
  ReadonlyArray<string>,
  ReadonlyArray<SourceRef>,
  string | null,
  Readonly<Record<string, string>>
]

export const sidecarSummaryOf = (sidecar: ModelSidecar): SidecarSummary => [
  sidecar.name,
  sidecar.target,
  sidecar.strategy,
  sidecar.depends_on,
  sidecar.sources,
  sidecar.tags["layer"] ?? null,
  sidecar.classification
]

/** A decoded sidecar's summary as JSON, sent beside its JSON so a compile that needs only that parses a fifth as much; none for other kinds. */
export const workSummary = (kind: FileKind, work: unknown): string | undefined =>
  kind === FileKind.sidecar && work !== undefined ? JSON.stringify(sidecarSummaryOf(work as ModelSidecar)) : undefined
