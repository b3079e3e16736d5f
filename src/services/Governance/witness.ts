import { Data, Effect, Option } from "effect"
import type { HeadWitness } from "../../schemas/audit"
import { hashAt } from "../Ledger/head"
import type { ChainReport, LedgerUnavailable } from "../Ledger/Ledger"
import { storeId } from "../StateStore/storeId"
import { Warehouse } from "../Warehouse/Warehouse"
import { readRecord, warehouseExists } from "./record"

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

/**
 * The warehouse record's witness, read only for `audit --verify`: an embedded file that does not
 * exist is never created (no record), and a warehouse that cannot be read is reported, not fatal.
 */
const warehouseWitness = Effect.gen(function* () {
  const wh = yield* Effect.serviceOption(Warehouse)
  if (Option.isNone(wh)) return undefined
  if (!(yield* warehouseExists)) return undefined
  const record = yield* Effect.either(readRecord(wh.value))
  if (record._tag === "Left") return { source: "warehouse", seq: null, hash: null, status: "unreadable", detail: record.left.detail } satisfies HeadWitness
  if (record.right === undefined) return undefined
  const mine = yield* storeId
  const pin = { seq: record.right.head_seq, hash: record.right.head_hash }
  // A store that does not exist holds none of the witnessed rows: its whole ledger is gone.
  if (mine !== null && mine !== record.right.store_id) return { source: "warehouse", ...pin, status: "other_store" } satisfies HeadWitness
  return yield* check("warehouse", pin)
})

/**
 * decisions 35: after the chain walk, each head witnessed outside the store must be in the chain.
 * A witnessed head that is not there is a truncated (or rewritten) tail: the report is no longer intact.
 */
export const checkWitnesses = (report: ChainReport, pin: HeadPin | undefined): Effect.Effect<ChainReport & { witnesses?: ReadonlyArray<HeadWitness> }, LedgerUnavailable> =>
  Effect.gen(function* () {
    const fromWarehouse = yield* warehouseWitness
    const witnesses = [...(fromWarehouse === undefined ? [] : [fromWarehouse]), ...(pin === undefined ? [] : [yield* check("expect_head", pin)])]
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
        reason: `the head ${missing.source === "warehouse" ? "the warehouse record witnessed" : "--expect-head pins"} (seq ${missing.seq}) is not in the chain: the ledger's tail was truncated or rewritten`
      },
      witnesses
    }
  })
