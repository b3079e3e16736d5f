// The models directory's listing (its model files, sorted): apart from models.ts, whose decoders (the model schemas)
// the compile index's readers never need: they list the directory only to check the index's names.
import { FileSystem, Path } from "@effect/platform"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { Effect, Either } from "effect"
import { ModelFileMismatch, ModelOutsideProject, ModelsUnreadable } from "./errors"
import type { LoadModelsOptions } from "./models"

/**
 * `(file) => path.join(dir, file)` for plain file names (no `/`, not `.` or `..`): the directory is
 * normalised once, not per file (30,000 joins at 10,000 models). Property-tested against `path.join`.
 */
export const joinInDir = (path: Pick<Path.Path, "join">, dir: string): ((file: string) => string) => {
  const probe = path.join(dir, "x")
  const prefix = probe.slice(0, -1)
  return (file) => prefix + file
}

/** The model files found in a models directory, names sorted. */
export interface ModelListing {
  /** What every listed path starts with: the models directory and its separator (`joinInDir`). */
  readonly prefix: string
  readonly names: ReadonlyArray<string>
  readonly sqlPaths: ReadonlyArray<string>
  readonly sidecarPaths: ReadonlyArray<string>
  /** `<name>.contract.toml` when present. */
  readonly contractPaths: ReadonlyArray<string | undefined>
}

/**
 * Lists `models/<name>.sql` with their `<name>.toml` sidecars and optional
 * `<name>.contract.toml`, sorted by name. A SQL file without a sidecar (or the reverse) is an error.
 */
export const listModels = (
  options: LoadModelsOptions
): Effect.Effect<ModelListing, ModelsUnreadable | ModelFileMismatch | ModelOutsideProject, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    // Synchronous like the file reads (22,000 entries); a failure is reported by the platform's listing, as before.
    const listed = Either.try(() => NodeFs.readdirSync(options.modelsDir, { withFileTypes: true }))
    const entries = Either.isRight(listed)
      ? listed.right.map((d) => d.name)
      : yield* fs
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
    for (const name of names) {
      if (!files.has(`${name}.toml`)) {
        return yield* new ModelFileMismatch({ model: name, detail: `${name}.sql has no sidecar ${name}.toml` })
      }
    }
    const inDir = joinInDir(path, options.modelsDir)
    // The directory listing already says which entries are links: no extra syscall for the others.
    const links = Either.isRight(listed) ? listed.right.filter((d) => d.isSymbolicLink()).map((d) => d.name) : []
    if (links.length > 0) yield* refuseOutsideLinks(options.modelsDir, new Set(links), names, files, inDir)
    return {
      prefix: inDir(""),
      names,
      sqlPaths: names.map((name) => inDir(`${name}.sql`)),
      sidecarPaths: names.map((name) => inDir(`${name}.toml`)),
      contractPaths: names.map((name) => (files.has(`${name}.contract.toml`) ? inDir(`${name}.contract.toml`) : undefined))
    }
  })

/** A model file that is a symlink must resolve inside the models directory; a dangling one is refused too. */
const refuseOutsideLinks = (
  modelsDir: string,
  links: ReadonlySet<string>,
  names: ReadonlyArray<string>,
  files: ReadonlySet<string>,
  inDir: (file: string) => string
): Effect.Effect<void, ModelOutsideProject> =>
  Effect.suspend(() => {
    const real = (p: string) => Either.try(() => NodeFs.realpathSync(p))
    const dir = real(modelsDir)
    for (const name of names) {
      for (const file of [`${name}.sql`, `${name}.toml`, `${name}.contract.toml`]) {
        if (!links.has(file) || !files.has(file)) continue
        const target = real(inDir(file))
        const inside = Either.isRight(dir) && Either.isRight(target) && target.right.startsWith(dir.right + NodePath.sep)
        if (!inside) return Effect.fail(new ModelOutsideProject({ file: inDir(file) }))
      }
    }
    return Effect.void
  })
