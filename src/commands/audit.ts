import { Path } from "@effect/platform"
import { Chunk, Clock, Effect, Either, Stream } from "effect"
import type { AuditListOutput } from "../schemas/audit"
import { ledgerHead } from "../services/Ledger/head"
import { Ledger, type LedgerFilter } from "../services/Ledger/Ledger"
import { InvalidPrincipalId } from "../services/Principal/Principal"
import { ProjectContext } from "../services/ProjectConfig/ProjectContext"
import { InvalidFlagValue, UsageError } from "./errors"
import { parseSince } from "./since"

export interface AuditListInput {
  readonly since?: string | undefined
  /** A principal id, or `unrecorded` for rows written without one. */
  readonly actor?: string | undefined
  readonly product?: string | undefined
  /** Rows about one model (or scope selector); conflicts with `product`. */
  readonly model?: string | undefined
  readonly effect?: string | undefined
}

/** The paged form: at most `limit` rows from `cursor` (the next page's cursor comes back with them). */
export interface AuditPageInput extends AuditListInput {
  readonly limit: number
  readonly cursor?: string | undefined
}

const EFFECTS = ["allow", "require_review", "deny"]
// The product spec reader (its Schema and rules) loads for `--product` alone: the plain list never reads a spec.
const productFiles = Effect.promise(() => import("../services/Products/files"))
const MAX_LIMIT = 1000
const ACTOR = /^[a-z0-9._-]{1,63}$/

/** The validated filter every audit read shares; the actor is taken only from input, never the environment. */
export const auditFilter = (input: Omit<AuditListInput, "product">) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const since = input.since === undefined ? undefined : yield* Either.match(parseSince(input.since, now), { onLeft: Effect.fail, onRight: Effect.succeed })
    if (input.actor !== undefined && input.actor !== "unrecorded" && !ACTOR.test(input.actor)) {
      return yield* new InvalidPrincipalId({ value: input.actor, origin: "--actor" })
    }
    const filter: LedgerFilter = {
      ...(since === undefined ? {} : { since }),
      ...(input.actor === undefined ? {} : { principalId: input.actor === "unrecorded" ? null : input.actor })
    }
    return filter
  })

/** What every form of `pcli audit` (list) reads: the document without its entries, and the rows' filter. */
const auditQuery = (input: AuditListInput) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger
    const path = yield* Path.Path
    const base = yield* auditFilter(input)
    if (input.model !== undefined && input.product !== undefined) return yield* new UsageError({ detail: "--model conflicts with --product" })
    if (input.effect !== undefined && !EFFECTS.includes(input.effect)) return yield* new InvalidFlagValue({ flag: "--effect", detail: `--effect must be one of ${EFFECTS.join(", ")}, got ${JSON.stringify(input.effect)}` })
    const { modelsDir, root } = yield* ProjectContext
    const product = input.product
    const model =
      product === undefined
        ? input.model
        : yield* Effect.flatMap(productFiles, (files) => files.productOutputModel({ root, modelsRel: path.relative(root, modelsDir).split(path.sep).join("/") }, product))
    const filter: LedgerFilter = { ...base, ...(model === undefined ? {} : { models: [model] }), ...(input.effect === undefined ? {} : { effects: [input.effect] }) }
    // An id filter cannot match rows recorded without an id: count them so the reader knows.
    const skipped = base.principalId === undefined || base.principalId === null ? 0 : yield* ledger.count({ ...filter, principalId: null })
    const head: AuditListOutput = {
      command: "audit",
      since: base.since?.toISOString() ?? null,
      actor: input.actor ?? null,
      product: input.product ?? null,
      model: model ?? null,
      entries: [],
      unattributed_skipped: skipped
    }
    return { head, filter, ledger }
  })

/**
 * `pcli audit [--since] [--actor] [--product]`: the document without its entries, and the entries
 * as a stream (oldest first, filtered in SQL), so a surface can print them as they arrive.
 */
export const auditListStream = (input: AuditListInput) => Effect.map(auditQuery(input), ({ filter, head, ledger }) => ({ head, entries: ledger.query(filter) }))

/** `pcli audit` as one value (the HTTP route, MCP, tests): the same rows, collected without a Stream. */
export const auditList = (input: AuditListInput) =>
  Effect.flatMap(auditQuery(input), ({ filter, head, ledger }) => Effect.map(ledger.list(filter), (entries): AuditListOutput => ({ ...head, entries })))

/** The cursor is the count of matching rows before the page: the ledger only appends, so it stays put. */
const pageBounds = (input: AuditPageInput) => {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_LIMIT) return Effect.fail(new InvalidFlagValue({ flag: "--limit", detail: `--limit must be 1..${MAX_LIMIT}, got ${input.limit}` }))
  const cursor = input.cursor ?? "0"
  if (!/^(0|[1-9][0-9]{0,11})$/.test(cursor)) return Effect.fail(new InvalidFlagValue({ flag: "--cursor", detail: `--cursor must be a cursor an earlier page returned, got ${JSON.stringify(cursor)}` }))
  return Effect.succeed({ offset: Number(cursor), limit: input.limit })
}

/** `pcli audit --limit N [--cursor C]`: one page of the same rows, oldest first, and where the next starts. */
export const auditPage = (input: AuditPageInput) =>
  Effect.gen(function* () {
    const { offset, limit } = yield* pageBounds(input)
    const { filter, head, ledger } = yield* auditQuery(input)
    // One row past the page says whether another page follows.
    const rows = yield* Stream.runCollect(ledger.query(filter).pipe(Stream.drop(offset), Stream.take(limit + 1)))
    const entries = Chunk.toReadonlyArray(rows)
    const out: AuditListOutput = { ...head, entries: entries.slice(0, limit), next_cursor: entries.length > limit ? String(offset + limit) : null }
    return out
  })
