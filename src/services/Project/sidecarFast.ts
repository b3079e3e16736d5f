/**
 * A conservative fast path for decoding sidecars and contracts: Schema decoding costs ~50 µs a
 * file (most of `pcli compile`'s CPU at 10,000 models). These functions accept only the common
 * shapes they check completely and build exactly what the Schema decoder would (same keys,
 * same order, same defaults); anything else returns undefined and the caller runs the Schema
 * decoder, which stays the single authority for errors and for the rarer shapes.
 * What they build is always a JSON value (no undefined, non-finite number, -0 or class instance),
 * so the read-ahead worker sends it as JSON without checking it again.
 * Property tests check agreement with the Schema decoders, and that JSON gives back what they build.
 */
import type { ContractColumn, DataTest, ModelContract, ModelSidecar, SourceRef, StrategyBlock } from "../../schemas/model"

type Obj = Readonly<Record<string, unknown>>

const isPlainObject = (value: unknown): value is Obj => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** True when every own key of `value` is in `allowed`. */
const onlyKeys = (value: Obj, allowed: ReadonlySet<string>): boolean => {
  for (const key in value) if (!allowed.has(key)) return false
  return true
}

const stringArray = (value: unknown): ReadonlyArray<string> | undefined => {
  if (!Array.isArray(value)) return undefined
  for (const item of value) if (typeof item !== "string") return undefined
  return [...(value as ReadonlyArray<string>)]
}

const stringRecord = (value: unknown): Readonly<Record<string, string>> | undefined => {
  if (!isPlainObject(value)) return undefined
  const out: Record<string, string> = {}
  for (const key in value) {
    const v = value[key]
    // `out.__proto__ = v` would not make a key: that record is the Schema decoder's to read.
    if (typeof v !== "string" || key === "__proto__") return undefined
    out[key] = v
  }
  return out
}

const targetKeys = new Set(["catalog", "schema", "table"])
const target = (value: unknown): ModelSidecar["target"] | undefined => {
  if (!isPlainObject(value) || !onlyKeys(value, targetKeys)) return undefined
  const { catalog, schema, table } = value
  if (typeof catalog !== "string" || typeof schema !== "string" || typeof table !== "string") return undefined
  return { catalog, schema, table }
}

const sourceKeys = new Set(["catalog", "schema", "table"])
const sources = (value: unknown): ReadonlyArray<SourceRef> | undefined => {
  if (!Array.isArray(value)) return undefined
  const out: Array<SourceRef> = []
  for (const item of value as ReadonlyArray<unknown>) {
    if (!isPlainObject(item) || !onlyKeys(item, sourceKeys)) return undefined
    const { catalog, schema, table } = item
    if (typeof schema !== "string" || typeof table !== "string") return undefined
    if ("catalog" in item) {
      if (typeof catalog !== "string") return undefined
      out.push({ catalog, schema, table })
    } else out.push({ schema, table })
  }
  return out
}

const fullRefreshKeys = new Set(["type"])
const incrementalKeys = new Set(["type", "timestamp_column"])
/** Only the two simplest strategies; the others go through Schema. */
const strategy = (value: unknown): StrategyBlock | undefined => {
  if (!isPlainObject(value)) return undefined
  if (value["type"] === "full_refresh" && onlyKeys(value, fullRefreshKeys)) return { type: "full_refresh" }
  if (value["type"] === "incremental" && onlyKeys(value, incrementalKeys)) {
    const column = value["timestamp_column"]
    return typeof column === "string" ? { type: "incremental", timestamp_column: column } : undefined
  }
  return undefined
}

const columnTestKeys = new Set(["type", "column", "severity", "filter"])
const acceptedValuesKeys = new Set(["type", "column", "values", "severity", "filter"])
const expressionKeys = new Set(["type", "expression", "severity", "filter"])

/** A test's `severity` (default "error"): undefined when not one of the two. */
const severityOf = (value: Obj): "error" | "warning" | undefined => {
  const severity = "severity" in value ? value["severity"] : "error"
  return severity === "error" || severity === "warning" ? severity : undefined
}

/** A test's optional `filter`: absent (undefined), a string, or `false` when not a string. */
const filterOf = (value: Obj): string | undefined | false => {
  if (!("filter" in value)) return undefined
  const filter = value["filter"]
  return typeof filter === "string" ? filter : false
}

// Each test is built as one literal in the Schema's key order (type, its own keys, severity,
// filter): a spread of a head object costs several times the whole decode.
/** not_null, unique, accepted_values and expression tests; the others go through Schema. */
const dataTest = (value: unknown): DataTest | undefined => {
  if (!isPlainObject(value)) return undefined
  const type = value["type"]
  const severity = severityOf(value)
  const filter = filterOf(value)
  if (severity === undefined || filter === false) return undefined
  if (type === "not_null" || type === "unique") {
    const column = value["column"]
    if (!onlyKeys(value, columnTestKeys) || typeof column !== "string") return undefined
    return filter === undefined ? { type, column, severity } : { type, column, severity, filter }
  }
  if (type === "accepted_values") {
    const column = value["column"]
    const values = value["values"]
    if (!onlyKeys(value, acceptedValuesKeys) || typeof column !== "string" || !Array.isArray(values) || values.length === 0) {
      return undefined
    }
    for (const v of values as ReadonlyArray<unknown>) {
      // A number JSON would not give back (nan, inf, -0.0) is the Schema decoder's: this path builds only JSON values.
      if (typeof v === "number" ? !Number.isFinite(v) || Object.is(v, -0) : typeof v !== "string" && typeof v !== "boolean") return undefined
    }
    const copy = [...(values as ReadonlyArray<string | number | boolean>)] as [string | number | boolean, ...Array<string | number | boolean>]
    return filter === undefined ? { type, column, values: copy, severity } : { type, column, values: copy, severity, filter }
  }
  if (type === "expression") {
    const expression = value["expression"]
    if (!onlyKeys(value, expressionKeys) || typeof expression !== "string") return undefined
    return filter === undefined ? { type, expression, severity } : { type, expression, severity, filter }
  }
  return undefined
}

const dataTests = (value: unknown): ReadonlyArray<DataTest> | undefined => {
  if (!Array.isArray(value)) return undefined
  const out: Array<DataTest> = []
  for (const item of value as ReadonlyArray<unknown>) {
    const test = dataTest(item)
    if (test === undefined) return undefined
    out.push(test)
  }
  return out
}

/** `freshness` is left to Schema (rare; integer constraints). */
const sidecarKeys = new Set(["name", "intent", "depends_on", "target", "strategy", "sources", "tests", "tags", "classification"])

/** The decoded sidecar when `data` has a common, fully valid shape; otherwise undefined. */
export const fastDecodeSidecar = (data: unknown): ModelSidecar | undefined => {
  if (!isPlainObject(data) || !onlyKeys(data, sidecarKeys)) return undefined
  const name = data["name"]
  if (typeof name !== "string") return undefined
  const intent = data["intent"]
  if ("intent" in data && typeof intent !== "string") return undefined
  const dependsOn = "depends_on" in data ? stringArray(data["depends_on"]) : []
  const decodedTarget = target(data["target"])
  const decodedStrategy: StrategyBlock | undefined = "strategy" in data ? strategy(data["strategy"]) : { type: "full_refresh" }
  const decodedSources = "sources" in data ? sources(data["sources"]) : []
  const tests = "tests" in data ? dataTests(data["tests"]) : []
  const tags = "tags" in data ? stringRecord(data["tags"]) : {}
  const classification = "classification" in data ? stringRecord(data["classification"]) : {}
  if (
    dependsOn === undefined ||
    decodedTarget === undefined ||
    decodedStrategy === undefined ||
    decodedSources === undefined ||
    tests === undefined ||
    tags === undefined ||
    classification === undefined
  ) {
    return undefined
  }
  return typeof intent === "string"
    ? { name, intent, depends_on: dependsOn, target: decodedTarget, strategy: decodedStrategy, sources: decodedSources, tests, tags, classification }
    : { name, depends_on: dependsOn, target: decodedTarget, strategy: decodedStrategy, sources: decodedSources, tests, tags, classification }
}

const contractKeys = new Set(["columns", "rules"])
const columnKeys = new Set(["name", "type", "nullable"])
const rulesKeys = new Set(["required"])

/** The decoded contract when `data` has the usual shape; otherwise undefined. */
export const fastDecodeContract = (data: unknown): ModelContract | undefined => {
  if (!isPlainObject(data) || !onlyKeys(data, contractKeys)) return undefined
  const columns: Array<ContractColumn> = []
  if ("columns" in data) {
    const raw = data["columns"]
    if (!Array.isArray(raw)) return undefined
    for (const item of raw as ReadonlyArray<unknown>) {
      if (!isPlainObject(item) || !onlyKeys(item, columnKeys)) return undefined
      const { name, type, nullable } = item
      if (typeof name !== "string" || typeof type !== "string" || typeof nullable !== "boolean") return undefined
      columns.push({ name, type, nullable })
    }
  }
  let required: ReadonlyArray<string> | undefined = []
  if ("rules" in data) {
    const rules = data["rules"]
    if (!isPlainObject(rules) || !onlyKeys(rules, rulesKeys)) return undefined
    required = "required" in rules ? stringArray(rules["required"]) : []
  }
  return required === undefined ? undefined : { columns, rules: { required } }
}
