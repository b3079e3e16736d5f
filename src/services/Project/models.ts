import type { FileSystem, Path } from "@effect/platform"
import * as NodeFs from "node:fs"
import { Effect, Either, Schema } from "effect"
import { ModelContract, ModelSidecar, type SourceRef, type StrategyBlock, type TargetBlock } from "../../schemas/model"
import type { ModelFiles } from "../../schemas/plans"
import type { MissingEnvVar, TomlDecodeError } from "../ProjectConfig/errors"
import { substituteEnvVars } from "../ProjectConfig/interpolate"
import { parseToml, schemaIssueToError } from "../../platform/toml"
import { ModelFileMismatch, type ModelOutsideProject, ModelsUnreadable } from "./errors"
import { fastDecodeContract, fastDecodeSidecar } from "./sidecarFast"
import { lazy } from "../../platform/lazy"

/** One model as written on disk: SQL body, decoded sidecar, optional contract. */
export interface ModelDefinition {
  readonly name: string
  readonly sql: string
  readonly sqlPath: string
  readonly sidecarPath: string
  readonly sidecar: ModelSidecar
  readonly contract: ModelContract | undefined
  readonly contractPath: string | undefined
  /** The texts it was decoded from (absent when it came from the compile cache): what a build of it records. */
  readonly files?: ModelFiles | undefined
}

/** What resolution, ordering and validation read of a model: its sidecar and contract, summarised. */
export interface ModelSummary {
  readonly name: string
  readonly target: TargetBlock
  readonly strategy: StrategyBlock
  readonly dependsOn: ReadonlyArray<string>
  readonly sources: ReadonlyArray<SourceRef>
  /** The `layer` tag, if any. */
  readonly layer: string | undefined
  readonly contracted: boolean
  /** Column → classification tag (sidecar `[classification]`): compile's W004 reads it. */
  readonly classification: Readonly<Record<string, string>>
}

export const summaryOf = (def: ModelDefinition): ModelSummary => ({
  name: def.name,
  target: def.sidecar.target,
  strategy: def.sidecar.strategy,
  dependsOn: def.sidecar.depends_on,
  sources: def.sidecar.sources,
  layer: def.sidecar.tags["layer"],
  contracted: def.contract !== undefined,
  classification: def.sidecar.classification
})

export type ModelLoadError = ModelsUnreadable | ModelFileMismatch | ModelOutsideProject | MissingEnvVar | TomlDecodeError

export interface LoadModelsOptions {
  readonly modelsDir: string
  /** Environment for `${VAR}` in sidecars; the CLI passes the process environment. */
  readonly env: Readonly<Record<string, string | undefined>>
  /**
   * How much older than the compile a file's (or the directory's) stat must be to be trusted by the
   * next one (default 1000 ms, see `cachedLoad.ts`); tests that set file times themselves lower it.
   */
  readonly racyMarginMs?: number
}

/**
 * Reads a model file synchronously: a project's files are small and many, and Node's async
 * `readFile` costs four thread-pool round trips each (8x slower at 22,000 files than this).
 */
export const readText = (path: string): Effect.Effect<string, ModelsUnreadable> =>
  Effect.try({
    try: () => NodeFs.readFileSync(path, "utf8"),
    catch: (e) => new ModelsUnreadable({ path, detail: e instanceof Error ? e.message : String(e) })
  })

// Decoders compiled once, on first use: a warm compile cache never decodes a sidecar (same options as `decodeToml`: unknown keys are errors, all issues).
const decodeOptions = { onExcessProperty: "error", errors: "all" } as const
const sidecarDecoder = lazy(() => Schema.decodeUnknownEither(ModelSidecar, decodeOptions))
const contractDecoder = lazy(() => Schema.decodeUnknownEither(ModelContract, decodeOptions))
const decodeSidecar = (u: unknown) => sidecarDecoder()(u)
const decodeContract = (u: unknown) => contractDecoder()(u)

const decodeSidecarFile = <A>(
  fast: (data: unknown) => A | undefined,
  decode: (data: unknown) => Either.Either<A, Parameters<typeof schemaIssueToError>[0]>,
  text: string,
  file: string,
  env: LoadModelsOptions["env"]
): Effect.Effect<A, MissingEnvVar | TomlDecodeError> =>
  // substituteEnvVars returns the text unchanged when it has no `${`; skip its line split then.
  Effect.flatMap(text.includes("${") ? substituteEnvVars(text, env, file) : Effect.succeed(text), (substituted) =>
    Effect.flatMap(parseToml(substituted, file), (data) => {
      const quick = fast(data)
      if (quick !== undefined) return Effect.succeed(quick)
      return Either.match(decode(data), {
        onLeft: (error) => Effect.fail(schemaIssueToError(error, substituted, file)),
        onRight: Effect.succeed
      })
    })
  )

/** Decodes one model from its file texts (no I/O), so tests and the loader share one path. */
export const decodeModel = (input: {
  readonly name: string
  readonly sql: string
  readonly sqlPath: string
  readonly sidecarText: string
  readonly sidecarPath: string
  readonly contractText: string | undefined
  readonly contractPath: string | undefined
  readonly env: LoadModelsOptions["env"]
}): Effect.Effect<ModelDefinition, ModelFileMismatch | MissingEnvVar | TomlDecodeError> =>
  Effect.gen(function* () {
    const sidecar = yield* decodeSidecarFile(fastDecodeSidecar, decodeSidecar, input.sidecarText, input.sidecarPath, input.env)
    if (sidecar.name !== input.name) {
      return yield* new ModelFileMismatch({
        model: input.name,
        detail: `${input.sidecarPath} declares name = "${sidecar.name}"; it must equal the file name`
      })
    }
    const contract =
      input.contractText === undefined || input.contractPath === undefined
        ? undefined
        : yield* decodeSidecarFile(fastDecodeContract, decodeContract, input.contractText, input.contractPath, input.env)
    return {
      name: input.name,
      sql: input.sql,
      sqlPath: input.sqlPath,
      sidecarPath: input.sidecarPath,
      sidecar,
      contract,
      contractPath: contract === undefined ? undefined : input.contractPath,
      files: { sql: input.sql, sidecar: input.sidecarText, contract: contract === undefined ? null : input.contractText! }
    }
  })

import { listModels, type ModelListing } from "./modelListing"

export { joinInDir, listModels, type ModelListing } from "./modelListing"

/** The SQL text of every listed model, in listing order. */
export const readModelSql = (
  listing: ModelListing
): Effect.Effect<ReadonlyArray<string>, ModelsUnreadable> => Effect.forEach(listing.sqlPaths, readText)

/** Reads and decodes every listed model's sidecar and contract, given its SQL texts. */
export const decodeListedModels = (
  listing: ModelListing,
  sqls: ReadonlyArray<string>,
  env: LoadModelsOptions["env"]
): Effect.Effect<ReadonlyArray<ModelDefinition>, ModelLoadError> =>
  // In name order, so the first error reported is the first model's (deterministic).
  Effect.forEach(listing.names, (name, i) =>
    Effect.gen(function* () {
      const sidecarPath = listing.sidecarPaths[i]!
      const contractPath = listing.contractPaths[i]
      const sidecarText = yield* readText(sidecarPath)
      const contractText = contractPath === undefined ? undefined : yield* readText(contractPath)
      return yield* decodeModel({
        name,
        sql: sqls[i]!,
        sqlPath: listing.sqlPaths[i]!,
        sidecarText,
        sidecarPath,
        contractText,
        contractPath,
        env
      })
    })
  )

/**
 * Reads every `models/<name>.sql` with its `<name>.toml` sidecar and optional
 * `<name>.contract.toml`, sorted by name. A SQL file without a sidecar (or the reverse) is an
 * error; otherwise the first read/decode error in name order is reported.
 */
export const loadModels = (
  options: LoadModelsOptions
): Effect.Effect<ReadonlyArray<ModelDefinition>, ModelLoadError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const listing = yield* listModels(options)
    const sqls = yield* readModelSql(listing)
    return yield* decodeListedModels(listing, sqls, options.env)
  })
