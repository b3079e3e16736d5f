import { FileSystem, Path } from "@effect/platform"
import { Clock, Context, Effect, Either, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AppliedBatch, type AppliedModel } from "../../schemas/plans"
import { lazy } from "../../platform/lazy"
import { AppliedStateIo } from "./errors"
import { readRegularFile, writeFileAtomic } from "./fsio"
import type { Revision } from "./revisions"

/**
 * The last applied state: one file per apply under `.pcli/applied/` (the models it built and
 * removed), merged in name order so later applies win. One write per apply, however many
 * models; concurrent applies never lose each other's records; superseded files are pruned.
 */
export interface AppliedStateService {
  readonly dir: string
  readonly read: Effect.Effect<ReadonlyMap<string, AppliedModel>, AppliedStateIo>
  /** Records one apply: the models it built (with their files) and the models it removed. */
  readonly record: (
    planId: string,
    built: ReadonlyArray<Omit<AppliedModel, "plan_id" | "applied_at">>,
    removed: ReadonlyArray<string>
  ) => Effect.Effect<void, AppliedStateIo>
}

export class AppliedState extends Context.Tag("pcli/AppliedState")<AppliedState, AppliedStateService>() {}

// Built on first use: read commands evaluate this module but most never read applied state.
const decode = lazy(() => Schema.decodeUnknownEither(Schema.parseJson(AppliedBatch)))
const batchName = /^\d{15}-[0-9a-z-]+\.json$/

export const make = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(root, ".pcli", "applied")
    const io = (where: string) => (e: { readonly message?: string; readonly detail?: string }) =>
      new AppliedStateIo({ path: where, detail: e.detail ?? e.message ?? "I/O error" })

    /** Every batch in apply order; a batch that vanished meanwhile (pruned) is skipped. */
    const batches = Effect.gen(function* () {
      const exists = yield* fs.exists(dir).pipe(Effect.mapError(io(dir)))
      if (!exists) return []
      const names = (yield* fs.readDirectory(dir).pipe(Effect.mapError(io(dir)))).filter((n) => batchName.test(n)).sort()
      const out: Array<{ readonly name: string; readonly batch: AppliedBatch }> = []
      for (const name of names) {
        const file = path.join(dir, name)
        const got = yield* readRegularFile(file).pipe(Effect.mapError(io(file)))
        if (got._tag !== "Text") continue
        const decoded = decode()(got.text)
        if (Either.isLeft(decoded)) return yield* new AppliedStateIo({ path: file, detail: "not an applied-state record" })
        out.push({ name, batch: decoded.right })
      }
      return out
    })

    /** Latest record per model, and which file holds each model's latest word (record or removal). */
    const merge = (list: ReadonlyArray<{ readonly name: string; readonly batch: AppliedBatch }>) => {
      const models = new Map<string, AppliedModel>()
      const latestIn = new Map<string, string>()
      for (const { name, batch } of list) {
        for (const m of batch.models) {
          models.set(m.model, { ...m, plan_id: batch.plan_id, applied_at: batch.applied_at })
          latestIn.set(m.model, name)
        }
        for (const removed of batch.removed) {
          models.delete(removed)
          latestIn.set(removed, name)
        }
      }
      return { models, live: new Set(latestIn.values()) }
    }

    const read = Effect.map(batches, (list) => merge(list).models as ReadonlyMap<string, AppliedModel>)

    const record: AppliedStateService["record"] = (planId, built, removed) =>
      Effect.gen(function* () {
        if (built.length === 0 && removed.length === 0) return
        const millis = yield* Clock.currentTimeMillis
        // Names sort in apply order: never at or before the newest existing batch.
        const existing = (yield* fs.exists(dir).pipe(Effect.mapError(io(dir))))
          ? (yield* fs.readDirectory(dir).pipe(Effect.mapError(io(dir)))).filter((n) => batchName.test(n))
          : []
        const order = existing.reduce((max, n) => Math.max(max, Number(n.slice(0, 15)) + 1), millis)
        const file = path.join(dir, `${String(order).padStart(15, "0")}-${process.pid}-${randomUUID().slice(0, 8)}.json`)
        const batch: AppliedBatch = { format_version: 1, plan_id: planId, applied_at: new Date(millis).toISOString(), models: [...built], removed: [...removed] }
        yield* writeFileAtomic(file, `${JSON.stringify(batch)}\n`).pipe(
          Effect.provideService(FileSystem.FileSystem, fs),
          Effect.provideService(Path.Path, path),
          Effect.mapError(io(file))
        )
        // A file none of whose entries is the latest word on its model can never matter again.
        const list = yield* batches
        const { live } = merge(list)
        yield* Effect.forEach(
          list.filter((b) => !live.has(b.name)),
          (b) => fs.remove(path.join(dir, b.name), { force: true }).pipe(Effect.mapError(io(b.name))),
          { discard: true }
        )
      })

    return AppliedState.of({ dir, read, record })
  })

/** The applied state as a revision to diff against. */
export const appliedRevision = (applied: ReadonlyMap<string, AppliedModel>): Revision =>
  new Map([...applied].map(([name, m]) => [name, m.files]))

export const layer = (root: string): Layer.Layer<AppliedState, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(AppliedState, make(root))
