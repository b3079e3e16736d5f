import { Either, ParseResult, Schema } from "effect"
import { createHash } from "node:crypto"

/** `sha256:<hex>` of some bytes: the hash manifests, journals and digests use. */
export const sha256 = (bytes: Uint8Array | string): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`

const Sha = Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/))

export const Disposition = Schema.Literal("artifact", "pending", "verified", "identity", "reject")
export type Disposition = typeof Disposition.Type

export const FieldLocation = Schema.Struct({
  detail: Schema.String,
  path: Schema.String,
  phase: Schema.Literal("A", "B")
})
export type FieldLocation = typeof FieldLocation.Type

export const FieldRow = Schema.Struct({
  disposition: Disposition,
  locations: Schema.Array(FieldLocation),
  note: Schema.String,
  reject_reason: Schema.optional(Schema.String)
})
export type FieldRow = typeof FieldRow.Type

export const LoweringPhase = Schema.Literal("lowered_contract", "merged")
export type LoweringPhase = typeof LoweringPhase.Type

/** The commit marker of one lowering generation: what was written, from which spec revision. */
export const LoweringManifest = Schema.Struct({
  artifacts: Schema.Record({ key: Schema.String, value: Sha }),
  fields: Schema.Record({ key: Schema.String, value: FieldRow }),
  output_model: Schema.String,
  phase: LoweringPhase,
  product_id: Schema.String,
  spec_digest: Sha,
  spec_path: Schema.String
})
export type LoweringManifest = typeof LoweringManifest.Type

const sortKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key])
    return out
  }
  return value
}

/**
 * Canonical JSON: keys sorted at every level, 2-space indent, every non-ASCII character as a
 * lowercase `\uXXXX` escape (surrogate pairs above the BMP), trailing newline. Hashed byte-for-byte.
 */
export const canonicalJson = (value: unknown): string =>
  `${JSON.stringify(sortKeys(value), null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)}\n`

export const encodeManifest = (manifest: LoweringManifest): string => canonicalJson(manifest)

/** Strict decode: exact keys, no coercion. `Left` carries a one-line reason. */
export const decodeManifest = (text: string): Either.Either<LoweringManifest, string> => {
  const json = Either.try({ try: () => JSON.parse(text) as unknown, catch: (e) => `not JSON: ${(e as Error).message}` })
  return Either.flatMap(json, (data) =>
    Schema.decodeUnknownEither(LoweringManifest, { onExcessProperty: "error" })(data).pipe(
      Either.mapLeft((e) => `not a lowering manifest: ${ParseResult.TreeFormatter.formatErrorSync(e).split("\n").slice(-1)[0]!.trim()}`)
    )
  )
}

/** One byte-verification problem line per listed artifact whose bytes differ from the manifest. */
export type ArtifactCheck =
  | { readonly rel: string; readonly status: "ok" }
  | { readonly rel: string; readonly status: "missing" | "unreadable" | "refused"; readonly expected: string; readonly detail?: string }
  | { readonly rel: string; readonly status: "drift"; readonly expected: string; readonly found: string }

export const describeArtifactProblem = (c: ArtifactCheck): string | undefined => {
  switch (c.status) {
    case "ok":
      return undefined
    case "missing":
      return `${c.rel}: missing (expected ${c.expected})`
    case "unreadable":
      return `${c.rel}: unreadable (expected ${c.expected})`
    case "refused":
      return `${c.rel}: refused (${c.detail ?? "not a project-relative path"})`
    case "drift":
      return `${c.rel}: content drift (expected ${c.expected}, found ${c.found})`
  }
}

/** Relative, canonical POSIX path: no empty, `.` or `..` segment, no leading or trailing `/`, no backslash or NUL. */
export const isCanonicalRelative = (rel: string): boolean =>
  rel.length > 0 &&
  !rel.startsWith("/") &&
  !rel.endsWith("/") &&
  !/[\\\0]/.test(rel) &&
  !/^[A-Za-z]:/.test(rel) &&
  rel.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..")
