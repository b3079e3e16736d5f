import { Either } from "effect"
import { createHash } from "node:crypto"
import * as Toml from "smol-toml"
import { productSpecKeys } from "../../schemas/productSpec"
import type { RejectCode, Rejection } from "./errors"
import { isBareIdentifier, isExactTriple, parseMaxLag, typeProblem } from "./specRules"

export interface SpecColumn {
  readonly name: string
  readonly type: string
  readonly nullable: boolean
}

export interface SpecFreshness {
  readonly maxLag: string
  readonly maxLagSeconds: bigint
  readonly timeColumn: string
  readonly severity: "error" | "warning" | undefined
}

/** A spec the strict parser accepted. `undefined` fields were not declared. */
export interface ProductSpec {
  readonly specVersion: number | undefined
  readonly name: string
  readonly intent: string
  readonly sourceTables: ReadonlyArray<string>
  /** The resolved output model: `output.model`, else the name (never written back). */
  readonly outputModel: string
  readonly outputModelDeclared: boolean
  readonly grain: ReadonlyArray<string>
  readonly columns: ReadonlyArray<SpecColumn>
  readonly checks: ReadonlyArray<string> | undefined
  readonly freshness: SpecFreshness | undefined
  /** `column → tag`, in sorted column order. */
  readonly classifications: ReadonlyArray<readonly [string, string]> | undefined
  readonly trustAgent: "propose_only"
}

/** `sha256:` + lowercase hex of the raw file bytes (not canonicalized: a comment edit is a new revision). */
export const specDigest = (bytes: Uint8Array): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`

export const productId = (name: string): string => `product:${name}`

type Table = Readonly<Record<string, unknown>>
type Parsed<A> = Either.Either<A, Rejection>

const reject = (code: RejectCode, detail: string): Parsed<never> => Either.left({ code, detail })

const isTable = (v: unknown): v is Table =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date)

const kindOf = (v: unknown): string =>
  typeof v === "bigint"
    ? "integer"
    : typeof v === "number"
      ? "float"
      : typeof v === "string"
        ? "string"
        : typeof v === "boolean"
          ? "boolean"
          : v instanceof Date
            ? "datetime"
            : Array.isArray(v)
              ? "array"
              : "table"

const has = (t: Table, key: string) => Object.prototype.hasOwnProperty.call(t, key)

/** Keys outside `allowed`, scanned in sorted order, so the same file always names the same key. */
const unknownKeys = (t: Table, allowed: ReadonlyArray<string>, path: string): Parsed<void> => {
  const extra = Object.keys(t)
    .filter((k) => !allowed.includes(k))
    .sort()
  return extra.length === 0 ? Either.void : reject("unknown-key", `unknown key ${path === "" ? extra[0] : `${path}.${extra[0]}`}`)
}

const required = (t: Table, key: string, path: string): Parsed<unknown> =>
  has(t, key) ? Either.right(t[key]) : reject("missing-key", `missing key ${path}.${key}`)

const wrongType = (path: string, expected: string, v: unknown) => reject("invalid-value", `${path} must be ${expected}, got ${kindOf(v)}`)

const asString = (v: unknown, path: string): Parsed<string> => (typeof v === "string" ? Either.right(v) : wrongType(path, "a string", v))

const asTable = (v: unknown, path: string): Parsed<Table> => (isTable(v) ? Either.right(v) : wrongType(path, "a table", v))

const asStringArray = (v: unknown, path: string, nonEmpty: boolean): Parsed<ReadonlyArray<string>> => {
  if (!Array.isArray(v)) return wrongType(path, "an array of strings", v)
  if (nonEmpty && v.length === 0) return reject("invalid-value", `${path} must not be empty`)
  const bad = v.findIndex((x) => typeof x !== "string")
  return bad === -1 ? Either.right(v as ReadonlyArray<string>) : wrongType(`${path}.${bad}`, "a string", v[bad])
}

const parseSource = (v: unknown): Parsed<ReadonlyArray<string>> =>
  Either.gen(function* () {
    const source = yield* asTable(v, "product.source")
    yield* unknownKeys(source, productSpecKeys.source, "product.source")
    const tables = yield* asStringArray(yield* required(source, "tables", "product.source"), "product.source.tables", true)
    const bad = tables.find((t) => !isExactTriple(t))
    if (bad !== undefined) {
      return yield* reject("source-not-exact-triple", `product.source.tables: ${JSON.stringify(bad)} is not an exact catalog.schema.table reference (no globs or spaces)`)
    }
    return tables
  })

const parseColumn = (v: unknown, i: number): Parsed<SpecColumn> =>
  Either.gen(function* () {
    const path = `product.output.columns.${i}`
    const column = yield* asTable(v, path)
    yield* unknownKeys(column, productSpecKeys.column, path)
    const name = yield* asString(yield* required(column, "name", path), `${path}.name`)
    const type = yield* asString(yield* required(column, "type", path), `${path}.type`)
    const nullable = yield* required(column, "nullable", path)
    if (typeof nullable !== "boolean") return yield* wrongType(`${path}.nullable`, "a boolean", nullable)
    if (!isBareIdentifier(name)) return yield* reject("column-name-invalid", `${path}.name ${JSON.stringify(name)} is not a bare identifier`)
    const problem = typeProblem(type)
    if (problem !== undefined) return yield* reject("type-not-rocky", `column '${name}': type ${JSON.stringify(type)}: ${problem}`)
    return { name, type, nullable }
  })

const parseFreshness = (v: unknown): Parsed<SpecFreshness> =>
  Either.gen(function* () {
    const path = "product.output.freshness"
    const table = yield* asTable(v, path)
    yield* unknownKeys(table, productSpecKeys.freshness, path)
    const maxLag = yield* asString(yield* required(table, "max_lag", path), `${path}.max_lag`)
    if (!has(table, "time_column")) return yield* reject("freshness-missing-time-column", `${path}.time_column is required`)
    const timeColumn = yield* asString(table["time_column"], `${path}.time_column`)
    const severity = table["severity"]
    if (severity !== undefined && severity !== "error" && severity !== "warning") {
      return yield* reject("invalid-value", `${path}.severity must be "error" or "warning", got ${typeof severity === "string" ? JSON.stringify(severity) : kindOf(severity)}`)
    }
    const seconds = parseMaxLag(maxLag)
    if (seconds === undefined) {
      return yield* reject("max-lag-unparseable", `${path}.max_lag ${JSON.stringify(maxLag)}: expected a positive integer and one unit s, h or d (e.g. 3600s, 24h, 7d)`)
    }
    if (timeColumn.length === 0) return yield* reject("freshness-missing-time-column", `${path}.time_column is empty`)
    return { maxLag, maxLagSeconds: seconds, timeColumn, severity }
  })

const parseClassifications = (v: unknown): Parsed<ReadonlyArray<readonly [string, string]>> =>
  Either.gen(function* () {
    const table = yield* asTable(v, "product.output.classifications")
    const keys = Object.keys(table).sort()
    const entries: Array<readonly [string, string]> = []
    for (const key of keys) entries.push([key, yield* asString(table[key], `product.output.classifications.${key}`)])
    return entries
  })

interface Output {
  readonly model: string | undefined
  readonly grain: ReadonlyArray<string>
  readonly columns: ReadonlyArray<SpecColumn>
  readonly checks: ReadonlyArray<string> | undefined
  readonly freshness: SpecFreshness | undefined
  readonly classifications: ReadonlyArray<readonly [string, string]> | undefined
}

const parseOutput = (v: unknown): Parsed<Output> =>
  Either.gen(function* () {
    const path = "product.output"
    const output = yield* asTable(v, path)
    yield* unknownKeys(output, productSpecKeys.output, path)
    const model = has(output, "model") ? yield* asString(output["model"], `${path}.model`) : undefined
    const grain = yield* asStringArray(yield* required(output, "grain", path), `${path}.grain`, true)
    const rawColumns = yield* required(output, "columns", path)
    if (!Array.isArray(rawColumns)) return yield* wrongType(`${path}.columns`, "an array of tables", rawColumns)
    if (rawColumns.length === 0) return yield* reject("invalid-value", `${path}.columns must not be empty`)
    const columns: Array<SpecColumn> = []
    for (let i = 0; i < rawColumns.length; i++) columns.push(yield* parseColumn(rawColumns[i], i))
    const checks = has(output, "checks") ? yield* asStringArray(output["checks"], `${path}.checks`, false) : undefined
    const freshness = has(output, "freshness") ? yield* parseFreshness(output["freshness"]) : undefined
    const classifications = has(output, "classifications") ? yield* parseClassifications(output["classifications"]) : undefined
    // Cross-checks last: duplicate column, grain membership, classification membership.
    const declared = new Set<string>()
    for (const c of columns) {
      if (declared.has(c.name)) return yield* reject("column-name-duplicate", `${path}.columns: column '${c.name}' is declared twice`)
      declared.add(c.name)
    }
    const strayGrain = grain.find((g) => !declared.has(g))
    if (strayGrain !== undefined) return yield* reject("grain-column-unknown", `${path}.grain: '${strayGrain}' is not a declared column`)
    const strayClass = (classifications ?? []).find(([c]) => !declared.has(c))
    if (strayClass !== undefined) {
      return yield* reject("classification-column-unknown", `${path}.classifications: '${strayClass[0]}' is not a declared column`)
    }
    return { model, grain, columns, checks, freshness, classifications }
  })

const parseTrust = (v: unknown): Parsed<"propose_only"> =>
  Either.gen(function* () {
    const trust = yield* asTable(v, "product.trust")
    yield* unknownKeys(trust, productSpecKeys.trust, "product.trust")
    const agent = yield* asString(yield* required(trust, "agent", "product.trust"), "product.trust.agent")
    if (agent !== "propose_only") {
      return yield* reject("trust-not-propose-only", `product.trust.agent is ${JSON.stringify(agent)}; only "propose_only" is accepted`)
    }
    return "propose_only" as const
  })

const parseVersion = (root: Table): Parsed<number | undefined> => {
  if (!has(root, "spec_version")) return Either.right(undefined)
  const v = root["spec_version"]
  if (typeof v !== "bigint") return wrongType("spec_version", "an integer", v)
  return v === 0n ? Either.right(0) : reject("spec-version-unsupported", `spec_version ${v} is not supported (this pcli reads spec_version 0)`)
}

const decodeUtf8 = (bytes: Uint8Array): Parsed<string> =>
  Either.try({
    try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
    catch: () => ({ code: "not-utf8" as const, detail: "the file is not valid UTF-8" })
  })

const parseTomlText = (text: string): Parsed<Table> =>
  Either.try({
    try: () => Toml.parse(text, { integersAsBigInt: true }) as Table,
    catch: (e) => ({
      code: "not-toml" as const,
      detail: `invalid TOML: ${String((e as { message?: unknown })?.message ?? e).split("\n")[0]!.replace(/^Invalid TOML document:\s*/, "")}`
    })
  })

/** The strict parser: total (never throws), every rejection a stable code in the fixed evaluation order. */
export const parseSpec = (bytes: Uint8Array): Either.Either<ProductSpec, Rejection> =>
  Either.gen(function* () {
    const text = yield* decodeUtf8(bytes)
    const root = yield* parseTomlText(text)
    yield* unknownKeys(root, productSpecKeys.root, "")
    const product = yield* asTable(has(root, "product") ? root["product"] : yield* reject("missing-key", "missing table [product]"), "product")
    yield* unknownKeys(product, productSpecKeys.product, "product")
    const name = yield* asString(yield* required(product, "name", "product"), "product.name")
    const intent = yield* asString(yield* required(product, "intent", "product"), "product.intent")
    const sourceTables = yield* parseSource(yield* required(product, "source", "product"))
    const output = yield* parseOutput(yield* required(product, "output", "product"))
    const trustAgent = yield* parseTrust(yield* required(product, "trust", "product"))
    if (!isBareIdentifier(name)) return yield* reject("product-name-invalid", `product.name ${JSON.stringify(name)} is not a bare identifier [A-Za-z_][A-Za-z0-9_]*`)
    if (intent.trim() === "") return yield* reject("intent-empty", "product.intent is blank")
    const outputModel = output.model ?? name
    if (!isBareIdentifier(outputModel)) {
      return yield* reject("output-model-invalid", `product.output.model ${JSON.stringify(outputModel)} is not a bare identifier`)
    }
    // The version last: a spec with a real modelling error reports that error.
    const specVersion = yield* parseVersion(root)
    return {
      specVersion,
      name,
      intent,
      sourceTables,
      outputModel,
      outputModelDeclared: output.model !== undefined,
      grain: output.grain,
      columns: output.columns,
      checks: output.checks,
      freshness: output.freshness,
      classifications: output.classifications,
      trustAgent
    } satisfies ProductSpec
  })

export const formatRejection = (r: Rejection): string => `[${r.code}] ${r.detail}`
