import { FileSystem, Path } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { ModelContract, ModelSidecar } from "../../schemas/model"
import type { MissingEnvVar, TomlDecodeError } from "../ProjectConfig/errors"
import { substituteEnvVars } from "../ProjectConfig/interpolate"
import { parseToml, schemaIssueToError } from "../ProjectConfig/toml"
import { ModelFileMismatch, ModelsUnreadable } from "./errors"

/** One model as written on disk: SQL body, decoded sidecar, optional contract. */
export interface ModelDefinition {
  readonly name: string
  readonly sql: string
  readonly sqlPath: string
  readonly sidecarPath: string
  readonly sidecar: ModelSidecar
  readonly contract: ModelContract | undefined
  readonly contractPath: string | undefined
}

export type ModelLoadError = ModelsUnreadable | ModelFileMismatch | MissingEnvVar | TomlDecodeError

export interface LoadModelsOptions {
  readonly modelsDir: string
  /** Environment for `${VAR}` in sidecars; the CLI passes the process environment. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** One decoder for all files: `FileSystem.readFileString` builds a TextDecoder per call. */
const utf8 = new TextDecoder("utf-8")

const readText = (fs: FileSystem.FileSystem, path: string) =>
  fs.readFile(path).pipe(
    Effect.map((bytes) => utf8.decode(bytes)),
    Effect.mapError((e) => new ModelsUnreadable({ path, detail: e.message }))
  )

/** Models read at once: enough to keep the I/O threads busy, few enough to bound open descriptors. */
const readLanes = 32

// Decoders compiled once (same options as `decodeToml`: unknown keys are errors, all issues).
const decodeOptions = { onExcessProperty: "error", errors: "all" } as const
const decodeSidecar = Schema.decodeUnknownEither(ModelSidecar, decodeOptions)
const decodeContract = Schema.decodeUnknownEither(ModelContract, decodeOptions)

const decodeSidecarFile = <A>(
  decode: (data: unknown) => Either.Either<A, Parameters<typeof schemaIssueToError>[0]>,
  text: string,
  file: string,
  env: LoadModelsOptions["env"]
): Effect.Effect<A, MissingEnvVar | TomlDecodeError> =>
  Effect.flatMap(substituteEnvVars(text, env, file), (substituted) =>
    Effect.flatMap(parseToml(substituted, file), (data) =>
      Either.match(decode(data), {
        onLeft: (error) => Effect.fail(schemaIssueToError(error, substituted, file)),
        onRight: Effect.succeed
      })
    )
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
    const sidecar = yield* decodeSidecarFile(decodeSidecar, input.sidecarText, input.sidecarPath, input.env)
    if (sidecar.name !== input.name) {
      return yield* new ModelFileMismatch({
        model: input.name,
        detail: `${input.sidecarPath} declares name = "${sidecar.name}"; it must equal the file name`
      })
    }
    const contract =
      input.contractText === undefined || input.contractPath === undefined
        ? undefined
        : yield* decodeSidecarFile(decodeContract, input.contractText, input.contractPath, input.env)
    return {
      name: input.name,
      sql: input.sql,
      sqlPath: input.sqlPath,
      sidecarPath: input.sidecarPath,
      sidecar,
      contract,
      contractPath: contract === undefined ? undefined : input.contractPath
    }
  })

/**
 * Reads every `models/<name>.sql` with its `<name>.toml` sidecar and optional
 * `<name>.contract.toml`, sorted by name. A SQL file without a sidecar (or the reverse) is an error.
 */
export const loadModels = (
  options: LoadModelsOptions
): Effect.Effect<ReadonlyArray<ModelDefinition>, ModelLoadError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const entries = yield* fs
      .readDirectory(options.modelsDir)
      .pipe(Effect.mapError((e) => new ModelsUnreadable({ path: options.modelsDir, detail: e.message })))
    const files = new Set(entries)
    const sqlNames = entries.filter((f) => f.endsWith(".sql")).map((f) => f.slice(0, -4))
    const sidecarNames = entries.filter((f) => f.endsWith(".toml") && !f.endsWith(".contract.toml")).map((f) => f.slice(0, -5))
    const sqlSet = new Set(sqlNames)
    for (const name of sidecarNames.sort()) {
      if (!sqlSet.has(name)) {
        return yield* new ModelFileMismatch({ model: name, detail: `${name}.toml has no ${name}.sql next to it` })
      }
    }
    const names = sqlNames.sort()
    const loadOne = (name: string) =>
      Effect.gen(function* () {
        const sqlPath = path.join(options.modelsDir, `${name}.sql`)
        const sidecarPath = path.join(options.modelsDir, `${name}.toml`)
        if (!files.has(`${name}.toml`)) {
          return yield* new ModelFileMismatch({ model: name, detail: `${name}.sql has no sidecar ${name}.toml` })
        }
        const contractFile = files.has(`${name}.contract.toml`)
          ? path.join(options.modelsDir, `${name}.contract.toml`)
          : undefined
        const sql = yield* readText(fs, sqlPath)
        const sidecarText = yield* readText(fs, sidecarPath)
        const contractText = contractFile === undefined ? undefined : yield* readText(fs, contractFile)
        return yield* decodeModel({
          name,
          sql,
          sqlPath,
          sidecarText,
          sidecarPath,
          contractText,
          contractPath: contractFile,
          env: options.env
        })
      })
    // A few long-lived lanes instead of a fiber per file (fibers per file made GC dominate);
    // results are kept per model so the first error reported is the first in name order.
    const results: Array<Either.Either<ModelDefinition, ModelLoadError>> = new Array(names.length)
    const lane = (first: number) =>
      Effect.gen(function* () {
        for (let i = first; i < names.length; i += readLanes) results[i] = yield* Effect.either(loadOne(names[i]!))
      })
    yield* Effect.forEach(
      Array.from({ length: Math.min(readLanes, names.length) }, (_, i) => i),
      lane,
      { concurrency: readLanes, discard: true }
    )
    const models: Array<ModelDefinition> = []
    for (const result of results) models.push(yield* result)
    return models
  })
