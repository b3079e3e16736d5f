import { Effect, Either } from "effect"
import type { ModelContract, ModelSidecar } from "../../schemas/model"
import type { ChangeClass, ChangeFinding, FindingKind, ModelFiles } from "../../schemas/plans"
import { canonicalJson, hashCanonical } from "../Artifacts/artifacts"
import { acquireDuckDbInstance } from "../Warehouse/duckdbInstance"
import { StatementFailed } from "../Warehouse/Warehouse"
import { decodeModel } from "./models"
import { BREAKING_FINDINGS } from "./breakingFindings"
import { normalizeType, parseableSql, serializeBatch } from "./sql"

export { BREAKING_FINDINGS } from "./breakingFindings"

export type { ChangeClass, ChangeFinding } from "../../schemas/plans"

/** One output column of a SELECT as the parser sees it (`type` only when the SQL spells it). */
export interface OutputColumn {
  readonly name: string
  readonly type: string | undefined
  /** Canonical JSON of the column's expression. */
  readonly expr: string
}

/** A parsed SELECT: everything but the projection, and the projection's columns. */
export interface ParsedQuery {
  readonly body: string
  readonly columns: ReadonlyArray<OutputColumn>
  /** False when a `*` or an unnamed expression hides which columns come out. */
  readonly closed: boolean
}

/** One revision of a model, parsed and decoded as far as it goes. */
export interface AnalyzedRevision {
  readonly files: ModelFiles
  readonly fingerprint: string
  /** Undefined when the sidecar does not decode. */
  readonly sidecar: ModelSidecar | undefined
  /** Undefined when there is no contract or it does not decode (see `files.contract`). */
  readonly contract: ModelContract | undefined
  /** Undefined when DuckDB cannot parse the SQL as one statement. */
  readonly query: ParsedQuery | undefined
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { [key: string]: Json }

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v)

/** The AST without source positions, so re-indenting a query changes nothing. */
const stripLocations = (node: Json): Json => {
  if (Array.isArray(node)) return node.map(stripLocations)
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const key in node) if (key !== "query_location") out[key] = stripLocations(node[key]!)
  return out
}

/** The SELECT whose list names the output columns: the leftmost of a set operation. */
const projectionNode = (node: JsonObject): JsonObject | undefined => {
  let current: Json | undefined = node
  while (isObject(current) && current["type"] === "SET_OPERATION_NODE") current = current["left"]
  return isObject(current) && current["type"] === "SELECT_NODE" ? current : undefined
}

const spelledType = (expr: JsonObject): string | undefined => {
  const typeNode = expr["class"] === "CAST" ? expr["cast_type"] : expr["class"] === "CONSTANT" && isObject(expr["value"]) ? expr["value"]["type"] : undefined
  if (!isObject(typeNode) || typeof typeNode["id"] !== "string") return undefined
  const info = typeNode["type_info"]
  if (isObject(info) && typeof info["width"] === "number" && typeof info["scale"] === "number") {
    return `${typeNode["id"]}(${info["width"]},${info["scale"]})`
  }
  return typeNode["id"]
}

const outputName = (expr: JsonObject): string | undefined => {
  if (typeof expr["alias"] === "string" && expr["alias"] !== "") return expr["alias"]
  const names = expr["column_names"]
  if (expr["class"] === "COLUMN_REF" && Array.isArray(names) && typeof names.at(-1) === "string") return names.at(-1) as string
  return undefined
}

/** Body and projection of one `json_serialize_sql` result; undefined unless it is exactly one statement. */
export const parsedQueryOf = (serialized: string): ParsedQuery | undefined => {
  const parsed = Either.getOrUndefined(Either.try(() => JSON.parse(serialized) as Json))
  if (!isObject(parsed) || parsed["error"] === true) return undefined
  const statements = parsed["statements"]
  if (!Array.isArray(statements) || statements.length !== 1) return undefined
  const root = stripLocations(statements[0] as Json)
  const node = isObject(root) ? root["node"] : undefined
  const projection = isObject(node) ? projectionNode(node) : undefined
  if (projection === undefined) return { body: canonicalJson(root), columns: [], closed: false }
  const list = Array.isArray(projection["select_list"]) ? (projection["select_list"] as ReadonlyArray<Json>) : []
  const columns: Array<OutputColumn> = []
  let closed = true
  for (const entry of list) {
    if (!isObject(entry)) continue
    const name = outputName(entry)
    if (entry["class"] === "STAR" || name === undefined) {
      closed = false
      continue
    }
    const { alias: _, ...expr } = entry
    columns.push({ name, type: spelledType(entry), expr: canonicalJson(expr) })
  }
  // The body is the AST with the projection emptied: column edits are judged column by column.
  projection["select_list"] = []
  return { body: canonicalJson(root), columns, closed }
}

/**
 * Parses and decodes revisions: SQL through DuckDB's own parser (`json_serialize_sql`, one
 * batch on a private in-memory database), sidecars and contracts through the model decoder.
 */
export const analyzeRevisions = (
  items: ReadonlyArray<{ readonly model: string; readonly files: ModelFiles; readonly parseSql?: boolean | undefined }>,
  env: Readonly<Record<string, string | undefined>>
): Effect.Effect<ReadonlyArray<AnalyzedRevision>, StatementFailed> =>
  Effect.scoped(
    Effect.gen(function* () {
      if (items.length === 0) return []
      // Only a model with both sides has its SQL compared (an added or removed model's findings never read it).
      const parsing = items.flatMap((item, i) => (item.parseSql === false ? [] : [i]))
      const serialized: Array<{ readonly json: string } | undefined> = new Array(items.length)
      if (parsing.length > 0) {
        const instance = yield* acquireDuckDbInstance(":memory:")
        const connection = yield* Effect.acquireRelease(
          Effect.tryPromise({ try: () => instance.connect(), catch: (e) => new StatementFailed({ detail: String(e), transient: false }) }),
          (c) => Effect.sync(() => c.closeSync())
        )
        const batch = yield* Effect.tryPromise({
          try: () => serializeBatch(connection, parsing.map((i) => parseableSql(items[i]!.files.sql))),
          catch: (e) => new StatementFailed({ detail: e instanceof Error ? e.message : String(e), transient: false })
        })
        parsing.forEach((itemIndex, k) => (serialized[itemIndex] = batch[k]))
      }
      return yield* Effect.forEach(items, (item, i) =>
        Effect.gen(function* () {
          const decode = (contractText: string | null) =>
            Effect.either(
              decodeModel({
                name: item.model,
                sql: item.files.sql,
                sqlPath: `${item.model}.sql`,
                sidecarText: item.files.sidecar,
                sidecarPath: `${item.model}.toml`,
                contractText: contractText ?? undefined,
                contractPath: contractText === null ? undefined : `${item.model}.contract.toml`,
                env
              })
            )
          const full = yield* decode(item.files.contract)
          const definition = Either.isRight(full) ? full.right : Either.getOrUndefined(yield* decode(null))
          const s = serialized[i]
          return {
            files: item.files,
            fingerprint: hashCanonical({ sql: item.files.sql, sidecar: item.files.sidecar, contract: item.files.contract }),
            sidecar: definition?.sidecar,
            contract: Either.isRight(full) ? full.right.contract : undefined,
            query: s === undefined ? undefined : parsedQueryOf(s.json)
          } satisfies AnalyzedRevision
        })
      )
    })
  )

const ADDITIVE: ReadonlySet<FindingKind> = new Set(["model_added", "column_added"])

const sameType = (a: string, b: string) => normalizeType(a) === normalizeType(b)

const queryFindings = (before: AnalyzedRevision, after: AnalyzedRevision, push: (f: ChangeFinding) => void) => {
  const b = before.query
  const a = after.query
  if (b === undefined || a === undefined) {
    if (before.files.sql !== after.files.sql) push({ kind: "sql_body_changed", detail: "the SQL does not parse on one side" })
    return
  }
  let bodyChanged = b.body !== a.body
  const old = new Map(b.columns.map((c) => [c.name.toLowerCase(), c]))
  const now = new Map(a.columns.map((c) => [c.name.toLowerCase(), c]))
  for (const [key, col] of old) {
    const next = now.get(key)
    if (next === undefined) {
      // Only a fully named new projection proves the column is gone (a `*` may still supply it).
      if (a.closed) push({ kind: "column_removed", column: col.name })
      else bodyChanged = true
      continue
    }
    if (col.type !== undefined && next.type !== undefined && !sameType(col.type, next.type)) {
      push({ kind: "column_type_changed", column: col.name, from: col.type, to: next.type })
    } else if (col.expr !== next.expr) bodyChanged = true
  }
  for (const [key, col] of now) {
    if (old.has(key)) continue
    if (b.closed) push({ kind: "column_added", column: col.name })
    else bodyChanged = true
  }
  if (b.closed && a.closed && b.columns.length > 0 && !bodyChanged) {
    const order = (q: ParsedQuery) => q.columns.map((c) => c.name.toLowerCase()).filter((k) => old.has(k) && now.has(k)).join(",")
    if (order(b) !== order(a)) push({ kind: "metadata_changed", detail: "output column order changed" })
  }
  if (bodyChanged) push({ kind: "sql_body_changed" })
}

const contractFindings = (before: AnalyzedRevision, after: AnalyzedRevision, push: (f: ChangeFinding) => void) => {
  if (before.files.contract === after.files.contract) return
  if (before.files.contract !== null && after.files.contract === null) return push({ kind: "contract_removed" })
  const b = before.contract
  const a = after.contract
  if (b === undefined || a === undefined) {
    return push({ kind: "metadata_changed", detail: before.files.contract === null ? "contract added" : "contract changed" })
  }
  const old = new Map(b.columns.map((c) => [c.name.toLowerCase(), c]))
  const now = new Map(a.columns.map((c) => [c.name.toLowerCase(), c]))
  let other = canonicalJson(b.rules) !== canonicalJson(a.rules)
  for (const [key, col] of old) {
    const next = now.get(key)
    if (next === undefined) push({ kind: "column_removed", column: col.name })
    else if (!sameType(col.type, next.type)) push({ kind: "column_type_changed", column: col.name, from: col.type, to: next.type })
    else if (!col.nullable && next.nullable) push({ kind: "column_nullability_loosened", column: col.name })
    else if (col.nullable !== next.nullable) other = true
  }
  for (const [key, col] of now) if (!old.has(key)) push({ kind: "column_added", column: col.name })
  if (other) push({ kind: "metadata_changed", detail: "contract rules changed" })
}

const sidecarFindings = (before: AnalyzedRevision, after: AnalyzedRevision, push: (f: ChangeFinding) => void) => {
  if (before.files.sidecar === after.files.sidecar) return
  const b = before.sidecar
  const a = after.sidecar
  if (b === undefined || a === undefined) return push({ kind: "metadata_changed", detail: "sidecar changed" })
  const { target: bt, strategy: bs, ...bRest } = b
  const { target: at, strategy: as, ...aRest } = a
  if (canonicalJson(bt) !== canonicalJson(at)) {
    push({ kind: "target_changed", from: `${bt.catalog}.${bt.schema}.${bt.table}`, to: `${at.catalog}.${at.schema}.${at.table}` })
  }
  if (canonicalJson(bs) !== canonicalJson(as)) push({ kind: "strategy_changed", from: bs.type, to: as.type })
  if (canonicalJson(bRest) !== canonicalJson(aRest)) push({ kind: "metadata_changed", detail: "sidecar changed" })
}

/** Differences between two revisions of a model; `before` undefined = new, `after` undefined = removed. */
export const changeFindings = (
  before: AnalyzedRevision | undefined,
  after: AnalyzedRevision | undefined
): ReadonlyArray<ChangeFinding> => {
  if (before === undefined) return after === undefined ? [] : [{ kind: "model_added" }]
  if (after === undefined) return [{ kind: "model_removed" }]
  const findings: Array<ChangeFinding> = []
  const seen = new Set<string>()
  const push = (f: ChangeFinding) => {
    const key = `${f.kind}\u0000${f.column?.toLowerCase() ?? ""}\u0000${f.detail ?? ""}`
    if (!seen.has(key)) findings.push(f)
    seen.add(key)
  }
  queryFindings(before, after, push)
  contractFindings(before, after, push)
  sidecarFindings(before, after, push)
  if (findings.length === 0 && before.fingerprint !== after.fingerprint) push({ kind: "text_changed" })
  return findings
}

/**
 * Any breaking finding → breaking; else any value finding (body, strategy, metadata, text) →
 * value change; else (only added columns or an added model) → additive. No findings at all
 * → breaking: a change that cannot be described is not assumed safe.
 */
export const classifyFindings = (findings: ReadonlyArray<ChangeFinding>): ChangeClass => {
  if (findings.length === 0 || findings.some((f) => BREAKING_FINDINGS.has(f.kind))) return "schema_change.breaking"
  return findings.every((f) => ADDITIVE.has(f.kind)) ? "schema_change.additive" : "value_change"
}
