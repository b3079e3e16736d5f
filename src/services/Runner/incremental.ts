import { createHash } from "node:crypto"
import { Effect } from "effect"
import type { Granularity } from "../../schemas/model"
import { canonicalJsonFast } from "../Artifacts/artifacts"
import type { CompiledModel } from "../Project/compile"
import { Warehouse } from "../Warehouse/Warehouse"
import { formatPartitionKey, parsePartitionKey } from "../Project/partitionKeys"
import { substituteWindow } from "../Project/sql"
import { nextPartitionStart } from "./partitions"
import type { BuildState, IntervalState } from "./RunStore"
import { bodyOf, physicalName } from "./strategies"
import { quoteIdent } from "./tests"

/**
 * What a build depends on besides its inputs' data: the SQL as run, the sidecar, the contract, the
 * strategy. SHA-256 (native) rather than BLAKE3 (JavaScript): it is computed for every model of every run.
 */
export const fingerprintOf = (model: CompiledModel): string => {
  const known = fingerprints.get(model)
  if (known !== undefined) return known
  const fingerprint = computeFingerprint(model)
  fingerprints.set(model, fingerprint)
  return fingerprint
}

/** A compiled model is immutable: its fingerprint is computed once per process (the no-op check and the run both ask). */
const fingerprints = new WeakMap<CompiledModel, string>()

const computeFingerprint = (model: CompiledModel): string =>
  createHash("sha256")
    .update(
      canonicalJsonFast({
        sql: bodyOf(model.definition.sql),
        sidecar: model.definition.sidecar,
        contract: model.definition.contract ?? null,
        strategy: model.strategy,
        target: model.target
      })
    )
    .digest("hex")

/**
 * Data version a build leaves behind (decisions.md "Incremental runs"): the bytes' hash for a
 * content-addressed model (identical bytes change nothing downstream), else the building run's id.
 */
export const dataVersionOf = (runId: string, outputHash: string | undefined): string =>
  outputHash === undefined ? `run:${runId}` : `blake3:${outputHash}`

/** A version that equals no recorded one: the input must be treated as changed. */
export const unknownVersion = (runId: string) => `unknown:${runId}`

const quoteRef = (ref: string) => ref.split(".").map(quoteIdent).join(".")

/**
 * Data version of a declared source table: its row count and an order-independent sum of row
 * hashes. Unreadable (a remote dialect without `hash`, a missing table) reads as changed.
 */
export const sourceVersion = (ref: string, runId: string) =>
  Effect.flatMap(Warehouse, (wh) =>
    wh.execute(`SELECT count(*), coalesce(sum(hash(t)), 0)::VARCHAR FROM ${quoteRef(ref)} AS t`).pipe(
      Effect.map((r) => `rows:${String(r.rows[0]?.[0] ?? 0)};sum:${String(r.rows[0]?.[1] ?? 0)}`),
      Effect.orElseSucceed(() => unknownVersion(runId))
    )
  )

/**
 * `schema.table` (lower case) of every relation in the warehouse; undefined when it cannot say.
 * Known without opening the warehouse when nothing has touched its file since pcli closed it.
 */
export const existingRelations = Effect.flatMap(Warehouse, (wh) =>
  Effect.flatMap(wh.knownRelations ?? Effect.succeed(undefined), (known) =>
    known !== undefined
      ? Effect.succeed<ReadonlySet<string> | undefined>(known)
      : wh.execute("SELECT table_schema, table_name FROM information_schema.tables").pipe(
          Effect.map((r): ReadonlySet<string> | undefined => new Set(r.rows.map((row) => `${String(row[0])}.${String(row[1])}`.toLowerCase()))),
          Effect.orElseSucceed((): ReadonlySet<string> | undefined => undefined)
        )
  )
)

export const relationKey = (model: CompiledModel) => `${model.target.schema}.${model.target.table}`.toLowerCase()

/** Same keys, same versions. */
export const sameInputs = (recorded: Readonly<Record<string, string>>, current: Readonly<Record<string, string>>) => {
  const keys = Object.keys(current)
  return keys.length === Object.keys(recorded).length && keys.every((k) => recorded[k] === current[k])
}

/** Why a model is rebuilt in full rather than reused or built interval by interval. */
export const needsFullBuild = (
  model: CompiledModel,
  previous: BuildState | undefined,
  fingerprint: string,
  relations: ReadonlySet<string> | undefined
): boolean =>
  previous === undefined || previous.fingerprint !== fingerprint || (relations !== undefined && !relations.has(relationKey(model)))

const keyFormats: Record<Granularity, string> = {
  hour: "%Y-%m-%dT%H",
  day: "%Y-%m-%d",
  month: "%Y-%m",
  year: "%Y"
}

export interface IntervalDigest {
  readonly key: string
  readonly row_count: number
  readonly checksum: string
}

const farFuture = new Date(Date.UTC(9999, 11, 31))

/** Per interval of `relation`: row count and an order-independent sum of row hashes. */
const digestsOf = (relation: string, timeColumn: string, granularity: Granularity) =>
  Effect.flatMap(Warehouse, (wh) =>
    wh
      .execute(
        `SELECT k, count(*), coalesce(sum(h), 0)::VARCHAR FROM (SELECT strftime(CAST(t.${quoteIdent(timeColumn)} AS TIMESTAMP), '${keyFormats[granularity]}') AS k, hash(t) AS h FROM ${relation} AS t) WHERE k IS NOT NULL GROUP BY k ORDER BY k`
      )
      .pipe(Effect.map((r): ReadonlyArray<IntervalDigest> => r.rows.map((row) => ({ key: String(row[0]), row_count: Number(row[1]), checksum: String(row[2]) }))))
  )

/** Digests of what a time_interval model's table holds now. */
export const tableDigests = (model: CompiledModel) =>
  Effect.flatMap(Warehouse, (wh) => {
    const s = model.strategy
    return s.type === "time_interval" ? digestsOf(physicalName(model.target, wh.kind), s.time_column, s.granularity) : Effect.succeed([])
  })

/** Digests of what the model's SQL yields now over its whole range (the same range a full build covers). */
export const queryDigests = (model: CompiledModel) => {
  const s = model.strategy
  if (s.type !== "time_interval") return Effect.succeed([] as ReadonlyArray<IntervalDigest>)
  const first = s.first_partition === undefined ? undefined : parsePartitionKey(s.first_partition, s.granularity)
  const sql = substituteWindow(bodyOf(model.definition.sql), first ?? new Date(Date.UTC(1, 0, 1)), farFuture)
  return digestsOf(`(\n${sql}\n)`, s.time_column, s.granularity)
}

/** Interval keys whose rows differ between what is recorded and what the SQL yields now (missing, changed, vanished). */
export const staleIntervals = (
  recorded: ReadonlyArray<IntervalState>,
  current: ReadonlyArray<IntervalDigest>
): ReadonlyArray<string> => {
  const before = new Map(recorded.map((r) => [r.interval_key, r]))
  const now = new Map(current.map((d) => [d.key, d]))
  const stale = new Set<string>()
  for (const d of current) {
    const r = before.get(d.key)
    if (r === undefined || r.row_count !== d.row_count || r.checksum !== d.checksum) stale.add(d.key)
  }
  for (const key of before.keys()) if (!now.has(key)) stale.add(key)
  return [...stale].sort()
}

/** Sorted interval keys grouped into contiguous `{from, to}` windows. */
export const contiguousWindows = (keys: ReadonlyArray<string>, granularity: Granularity) => {
  const windows: Array<{ from: string; to: string }> = []
  for (const key of keys) {
    const last = windows[windows.length - 1]
    const lastStart = last === undefined ? undefined : parsePartitionKey(last.to, granularity)
    if (last !== undefined && lastStart !== undefined && formatPartitionKey(nextPartitionStart(lastStart, granularity), granularity) === key) {
      last.to = key
    } else {
      windows.push({ from: key, to: key })
    }
  }
  return windows
}
