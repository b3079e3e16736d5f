import { FileSystem, Path } from "@effect/platform"
import { Context, Effect, Either, Layer, Schema } from "effect"
import { AppliedModel } from "../../schemas/plans"
import { AppliedStateIo } from "./errors"
import { readRegularFile, writeFileAtomic } from "./fsio"
import type { Revision } from "./revisions"

/**
 * The last applied state: one file per model under `.pcli/applied/`, written after the model
 * built successfully under `pcli apply`. Per-model files keep two applies of different models
 * from losing each other's records.
 */
export interface AppliedStateService {
  readonly dir: string
  readonly read: Effect.Effect<ReadonlyMap<string, AppliedModel>, AppliedStateIo>
  readonly record: (models: ReadonlyArray<AppliedModel>) => Effect.Effect<void, AppliedStateIo>
  /** Drops the records of models a plan removed. */
  readonly forget: (models: ReadonlyArray<string>) => Effect.Effect<void, AppliedStateIo>
}

export class AppliedState extends Context.Tag("pcli/AppliedState")<AppliedState, AppliedStateService>() {}

const decode = Schema.decodeUnknownEither(Schema.parseJson(AppliedModel))

// Model names come from file names in the models directory, so they are file-name safe.
const fileName = /^(.+)\.json$/

export const make = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(root, ".pcli", "applied")
    const atomic = (file: string, text: string) =>
      writeFileAtomic(file, text).pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))
    const io = (where: string) => (e: { readonly message?: string; readonly detail?: string }) =>
      new AppliedStateIo({ path: where, detail: e.detail ?? e.message ?? "I/O error" })

    const read = Effect.gen(function* () {
      const exists = yield* fs.exists(dir).pipe(Effect.mapError(io(dir)))
      const out = new Map<string, AppliedModel>()
      if (!exists) return out
      const names = (yield* fs.readDirectory(dir).pipe(Effect.mapError(io(dir)))).filter((n) => fileName.test(n)).sort()
      for (const name of names) {
        const file = path.join(dir, name)
        const got = yield* readRegularFile(file).pipe(Effect.mapError(io(file)))
        if (got._tag !== "Text") continue
        const decoded = decode(got.text)
        if (Either.isLeft(decoded)) return yield* new AppliedStateIo({ path: file, detail: "not an applied-state record" })
        out.set(decoded.right.model, decoded.right)
      }
      return out
    })

    const record = (models: ReadonlyArray<AppliedModel>) =>
      Effect.forEach(
        models,
        (m) => {
          const file = path.join(dir, `${m.model}.json`)
          return atomic(file, `${JSON.stringify(m, null, 2)}\n`).pipe(Effect.mapError(io(file)))
        },
        { discard: true }
      )

    const forget = (models: ReadonlyArray<string>) =>
      Effect.forEach(
        models,
        (m) => {
          const file = path.join(dir, `${m}.json`)
          return fs.remove(file, { force: true }).pipe(Effect.mapError(io(file)))
        },
        { discard: true }
      )

    return AppliedState.of({ dir, read, record, forget })
  })

/** The applied state as a revision to diff against. */
export const appliedRevision = (applied: ReadonlyMap<string, AppliedModel>): Revision =>
  new Map([...applied].map(([name, m]) => [name, m.files]))

export const layer = (root: string): Layer.Layer<AppliedState, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(AppliedState, make(root))
