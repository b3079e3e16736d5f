import { FileSystem, Path } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Clock, Context, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { stateBackend } from "../StateStore/backend"
import {
  GatedPayload,
  type Plan,
  type PlanAuthor,
  PlanFile,
  type PlanKind,
  type ReviewMarker,
  RunPayload
} from "../../schemas/plans"
import { parseBoundedJson } from "../../platform/jsonBounds"
import { lazy } from "../../platform/lazy"
import { type ApprovalTaken, PlanIntegrity, PlanNotFound, PlanStoreIo, ReviewMarkerWriteFailed } from "./errors"
import { readRegularFile, writeFileAtomic } from "./fsio"
import { isPlanId, planIdOf } from "./ids"
import { encodeMarker, type MarkerState, markerState } from "./markers"

export type PlanReadError = PlanNotFound | PlanIntegrity | PlanStoreIo

export interface NewPlan {
  readonly kind: PlanKind
  readonly payload: Plan["payload"]
  readonly principal: PlanAuthor
}

export interface WrittenPlan {
  readonly plan: Plan
  readonly path: string
  /** False when an intact plan with this id was already on disk (it is kept, not rewritten). */
  readonly written: boolean
}

export interface PlanStoreService {
  /** `<project root>/.pcli/plans`. */
  readonly dir: string
  readonly planPath: (planId: string) => string
  readonly markerPath: (planId: string) => string
  readonly write: (plan: NewPlan) => Effect.Effect<WrittenPlan, PlanStoreIo>
  /** Re-derives the id from the file on every read: an edited plan is `plan-integrity`. */
  readonly read: (planId: string) => Effect.Effect<Plan, PlanReadError>
  /** Every plan file in the directory, each read as `read` does. */
  readonly list: Effect.Effect<ReadonlyArray<Either.Either<Plan, PlanReadError>>, PlanStoreIo>
  readonly marker: (planId: string) => Effect.Effect<MarkerState>
  readonly writeMarker: (marker: ReviewMarker) => Effect.Effect<string, ReviewMarkerWriteFailed>
  /**
   * Runs `record` (which appends the approval row and makes the marker) and writes its marker. In a
   * shared store this is a compare-and-swap against `seen`, the approval seq the approver saw
   * (storedPlans.ts); in the local files the marker is written after, as before.
   */
  readonly approve: <A, E, R>(
    planId: string,
    seen: number | null,
    record: Effect.Effect<readonly [ReviewMarker, A], E, R>
  ) => Effect.Effect<readonly [string, A], E | ReviewMarkerWriteFailed | ApprovalTaken, R>
}

export class PlanStore extends Context.Tag("pcli/PlanStore")<PlanStore, PlanStoreService>() {}

const decodeFile = Schema.decodeUnknownEither(PlanFile)
const decodeRun = Schema.decodeUnknownEither(RunPayload, { onExcessProperty: "error" })
// Built on first use: a run plan never needs it.
const decodeGated = lazy(() => Schema.decodeUnknownEither(GatedPayload))

/** Largest plan file read back: far above any real plan, below what would strain memory. */
export const MAX_PLAN_CHARS = 16 * 1024 * 1024

const firstIssue = (error: ParseResult.ParseError): string => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  return issue === undefined ? "invalid" : issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
}

/** Checks a plan file's text against the id it is stored under. */
export const parsePlan = (planId: string, path: string, text: string): Either.Either<Plan, PlanIntegrity> => {
  const fail = (detail: string) => Either.left(new PlanIntegrity({ planId, path, detail }))
  // Size and nesting are refused before anything recursive (decoding, hashing) sees the value.
  const raw = parseBoundedJson(text, MAX_PLAN_CHARS)
  if (Either.isLeft(raw)) return fail(raw.left)
  const file = decodeFile(raw.right)
  if (Either.isLeft(file)) return fail(`not a plan file (${firstIssue(file.left)})`)
  const { kind, payload } = file.right
  // The hash covers the payload exactly as stored, before any decoding could drop or add keys.
  const derived = planIdOf(kind, payload)
  if (derived !== planId) return fail(`its content hashes to ${derived}`)
  if (file.right.plan_id !== planId) return fail(`it records plan_id ${file.right.plan_id}`)
  if (kind === "gc" || kind === "restore" || kind === "backfill" || kind === "promote" || kind === "rollback") {
    const decoded = decodeGated()(payload)
    if (Either.isLeft(decoded)) return fail(`payload: ${firstIssue(decoded.left)}`)
    const unprinted = unfingerprinted(decoded.right.fingerprints, decoded.right.models)
    return unprinted === undefined ? Either.right({ ...file.right, kind, payload: decoded.right }) : fail(unprinted)
  }
  const decoded = decodeRun(payload)
  if (Either.isLeft(decoded)) return fail(`payload: ${firstIssue(decoded.left)}`)
  const named = [...decoded.right.models, ...decoded.right.changes.map((c) => c.model)]
  const unprinted = unfingerprinted(decoded.right.fingerprints, named)
  return unprinted === undefined ? Either.right({ ...file.right, kind, payload: decoded.right }) : fail(unprinted)
}

/** Issue 32 item 3: every plan kind fingerprints every model it names; a plan without them is not one pcli wrote. */
const unfingerprinted = (fingerprints: Readonly<Record<string, string | null>> | undefined, models: ReadonlyArray<string>): string | undefined => {
  if (fingerprints === undefined) return "payload: fingerprints are missing"
  const missing = [...new Set(models)].filter((m) => !Object.hasOwn(fingerprints, m)).sort()
  return missing.length === 0 ? undefined : `payload: no fingerprint for ${missing.join(", ")}`
}

export const make = (root: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const dir = path.join(root, ".pcli", "plans")
    const atomic = (file: string, text: string) =>
      writeFileAtomic(file, text).pipe(Effect.provideService(FileSystem.FileSystem, fs), Effect.provideService(Path.Path, path))
    const planPath = (planId: string) => path.join(dir, `${planId}.json`)
    const markerPath = (planId: string) => path.join(dir, `${planId}.reviewed.json`)

    const read = (planId: string): Effect.Effect<Plan, PlanReadError> =>
      Effect.gen(function* () {
        const file = planPath(planId)
        if (!isPlanId(planId)) return yield* new PlanNotFound({ planId, path: file })
        const got = yield* readRegularFile(file).pipe(Effect.mapError((e) => new PlanStoreIo({ path: file, detail: e.detail })))
        if (got._tag === "Missing") return yield* new PlanNotFound({ planId, path: file })
        if (got._tag === "NotAFile") return yield* new PlanIntegrity({ planId, path: file, detail: `it is a ${got.found}, not a regular file` })
        return yield* parsePlan(planId, file, got.text)
      })

    const write = (plan: NewPlan): Effect.Effect<WrittenPlan, PlanStoreIo> =>
      Effect.gen(function* () {
        const planId = planIdOf(plan.kind, plan.payload)
        const file = planPath(planId)
        const existing = yield* Effect.either(read(planId))
        if (Either.isRight(existing)) return { plan: existing.right, path: file, written: false }
        const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
        const stored = {
          plan_id: planId,
          format_version: 1 as const,
          kind: plan.kind,
          created_at: createdAt,
          principal: plan.principal,
          payload: plan.payload
        }
        yield* atomic(file, `${JSON.stringify(stored, null, 2)}\n`).pipe(
          Effect.mapError((e) => new PlanStoreIo({ path: file, detail: e.message }))
        )
        return { plan: stored as Plan, path: file, written: true }
      })

    const list = Effect.gen(function* () {
      const exists = yield* fs.exists(dir).pipe(Effect.mapError((e) => new PlanStoreIo({ path: dir, detail: e.message })))
      if (!exists) return []
      const names = yield* fs.readDirectory(dir).pipe(Effect.mapError((e) => new PlanStoreIo({ path: dir, detail: e.message })))
      const ids = names
        .filter((n) => /^[0-9a-f]{64}\.json$/.test(n))
        .map((n) => n.slice(0, -5))
        .sort()
      return yield* Effect.forEach(ids, (id) => Effect.either(read(id)))
    })

    const marker = (planId: string) => {
      const file = markerPath(planId)
      return Effect.map(Effect.either(readRegularFile(file)), (got) => markerState(planId, file, got))
    }

    const writeMarker = (body: ReviewMarker) => {
      const file = markerPath(body.plan_id)
      return atomic(file, encodeMarker(body)).pipe(
        Effect.as(file),
        Effect.mapError((e) => new ReviewMarkerWriteFailed({ path: file, detail: e.message }))
      )
    }

    const approve: PlanStoreService["approve"] = (_planId, _seen, record) =>
      Effect.flatMap(record, ([body, extra]) => Effect.map(writeMarker(body), (path) => [path, extra] as const))

    return PlanStore.of({ dir, planPath, markerPath, write, read, list, marker, writeMarker, approve })
  })

/**
 * The plan store of the project at `root`: its files; on a PostgreSQL state store the store's tables,
 * with the files as a local export (decision 36).
 */
export const layer = (root: string): Layer.Layer<PlanStore, never, FileSystem.FileSystem | Path.Path> =>
  Layer.effect(
    PlanStore,
    Effect.gen(function* () {
      const files = yield* make(root)
      const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
      if ((yield* stateBackend) !== "postgres" || Option.isNone(sql)) return files
      const { storedPlans } = yield* Effect.promise(() => import("./storedPlans"))
      return storedPlans(sql.value, files)
    })
  )
