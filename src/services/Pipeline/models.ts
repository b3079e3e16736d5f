import { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import { ModelContract, ModelSidecar } from "../../schemas/model"
import type { MissingEnvVar, TomlDecodeError } from "../ProjectConfig/errors"
import { substituteEnvVars } from "../ProjectConfig/interpolate"
import { decodeToml } from "../ProjectConfig/toml"
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

const readText = (fs: FileSystem.FileSystem, path: string) =>
  fs.readFileString(path).pipe(Effect.mapError((e) => new ModelsUnreadable({ path, detail: e.message })))

const decodeSidecarFile = <A, I>(
  schema: Parameters<typeof decodeToml<A, I>>[0],
  text: string,
  file: string,
  env: LoadModelsOptions["env"]
) => Effect.flatMap(substituteEnvVars(text, env, file), (substituted) => decodeToml(schema, substituted, file))

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
    const sidecar = yield* decodeSidecarFile(ModelSidecar, input.sidecarText, input.sidecarPath, input.env)
    if (sidecar.name !== input.name) {
      return yield* new ModelFileMismatch({
        model: input.name,
        detail: `${input.sidecarPath} declares name = "${sidecar.name}"; it must equal the file name`
      })
    }
    const contract =
      input.contractText === undefined || input.contractPath === undefined
        ? undefined
        : yield* decodeSidecarFile(ModelContract, input.contractText, input.contractPath, input.env)
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
    return yield* Effect.forEach(
      names,
      (name) =>
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
        }),
      { concurrency: 16 }
    )
  })
