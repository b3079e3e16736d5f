import { FileSystem, Path } from "@effect/platform"
import { Data, Effect, Option } from "effect"
import type { HeadWitness } from "../../schemas/audit"
import { hashAt } from "../Ledger/head"
import type { ChainReport, LedgerUnavailable } from "../Ledger/Ledger"
import { ProjectContext } from "../ProjectConfig/ProjectContext"
import { storeId } from "../StateStore/storeId"
import { Warehouse } from "../Warehouse/Warehouse"
import { readObjectWitness } from "./objectWitness"
import { type GovernanceRecord, readRecord, warehouseExists } from "./record"

/** `--expect-head` that is not `SEQ:HASH` (a seq and 64 lower-case hex digits). */
export class InvalidExpectHead extends Data.TaggedError("InvalidExpectHead")<{ readonly value: string }> {
  readonly code = "invalid-expect-head"
  override get message() {
    return `--expect-head must be SEQ:HASH (a ledger seq, a colon and the row's 64-hex hash, as audit --verify prints them), got ${JSON.stringify(this.value.slice(0, 80))}`
  }
}

export interface HeadPin {
  readonly seq: number
  readonly hash: string
}

export const parseExpectHead = (value: string): Effect.Effect<HeadPin, InvalidExpectHead> => {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(value)
  return match === null ? Effect.fail(new InvalidExpectHead({ value })) : Effect.succeed({ seq: Number(match[1]), hash: match[2]! })
}

/** Whether the chain (already verified intact) holds `pin`: the same seq with the same hash. */
const check = (source: HeadWitness["source"], pin: HeadPin) =>
  Effect.map(hashAt(pin.seq), (stored): HeadWitness => ({ source, seq: pin.seq, hash: pin.hash, status: stored === pin.hash ? "in_chain" : "not_in_chain" }))

/** A record read from outside the store, judged against this store's chain. */
const judge = (source: HeadWitness["source"], record: GovernanceRecord) =>
  Effect.gen(function* () {
    const mine = yield* storeId
    const pin = { seq: record.head_seq, hash: record.head_hash }
    // A store that does not exist holds none of the witnessed rows: its whole ledger is gone.
    if (mine !== null && mine !== record.store_id) return { source, ...pin, status: "other_store" } satisfies HeadWitness
    return yield* check(source, pin)
  })

const unreadable = (source: HeadWitness["source"], detail: string): HeadWitness => ({ source, seq: null, hash: null, status: "unreadable", detail })

/** A record read from outside the store: none, the record, or why it could not be read. */
type OutsideRecord = GovernanceRecord | { readonly unreadable: string } | undefined

/** The records witnessing this store's head outside it (decisions 35), read before they are judged against the chain. */
export interface OutsideRecords {
  readonly warehouse: OutsideRecord
  readonly objectTier: OutsideRecord
}

/**
 * The warehouse record, read only for `audit --verify`: an embedded file that does not exist is
 * never created (no record), and a warehouse that cannot be read is reported, not fatal.
 */
const warehouseRecord: Effect.Effect<OutsideRecord> = Effect.gen(function* () {
  const wh = yield* Effect.serviceOption(Warehouse)
  if (Option.isNone(wh)) return undefined
  if (!(yield* warehouseExists)) return undefined
  const record = yield* Effect.either(readRecord(wh.value))
  return record._tag === "Left" ? { unreadable: record.left.detail } : record.right
})

/** The object tier's copy, when `[state] object_store_url` is configured. */
const objectTierRecord: Effect.Effect<OutsideRecord> = Effect.gen(function* () {
  const project = yield* Effect.serviceOption(ProjectContext)
  const fs = yield* Effect.serviceOption(FileSystem.FileSystem)
  const path = yield* Effect.serviceOption(Path.Path)
  const url = Option.getOrUndefined(Option.flatMap(project, (p) => Option.flatMap(p.config, (c) => Option.fromNullable(c.settings.state?.object_store_url))))
  if (url === undefined || Option.isNone(fs) || Option.isNone(path)) return undefined
  return yield* readObjectWitness(url).pipe(Effect.provideService(FileSystem.FileSystem, fs.value), Effect.provideService(Path.Path, path.value))
})

/**
 * Both records, read while the chain is walked (`audit --verify` runs the two side by side: DuckDB
 * opens its file on its own threads). Read first, a record never names a head appended after the walk.
 */
export const readOutsideRecords: Effect.Effect<OutsideRecords> = Effect.all({ warehouse: warehouseRecord, objectTier: objectTierRecord })

const judged = (source: HeadWitness["source"], record: OutsideRecord) =>
  record === undefined ? Effect.succeed(undefined) : "unreadable" in record ? Effect.succeed(unreadable(source, record.unreadable)) : judge(source, record)

/**
 * decisions 35: after the chain walk, each head witnessed outside the store must be in the chain.
 * A witnessed head that is not there is a truncated (or rewritten) tail: the report is no longer intact.
 */
export const checkWitnesses = (
  report: ChainReport,
  pin: HeadPin | undefined,
  records: OutsideRecords
): Effect.Effect<ChainReport & { witnesses?: ReadonlyArray<HeadWitness> }, LedgerUnavailable> =>
  Effect.gen(function* () {
    const outside = [yield* judged("warehouse", records.warehouse), yield* judged("object_tier", records.objectTier)].filter((w) => w !== undefined)
    const witnesses = [...outside, ...(pin === undefined ? [] : [yield* check("expect_head", pin)])]
    if (witnesses.length === 0) return report
    const missing = witnesses.find((w) => w.status === "not_in_chain")
    if (!report.intact || missing === undefined || missing.seq === null) return { ...report, witnesses }
    const stored = yield* hashAt(missing.seq)
    return {
      intact: false,
      rows: report.rows,
      head_hash: report.head_hash,
      first_bad: {
        seq: missing.seq,
        decision_ref: null,
        expected_hash: missing.hash,
        stored_hash: stored ?? null,
        reason: `the head ${missing.source === "expect_head" ? "--expect-head pins" : `the ${missing.source.replace("_", " ")} witnessed`} (seq ${missing.seq}) is not in the chain: the ledger's tail was truncated or rewritten`
      },
      witnesses
    }
  })
