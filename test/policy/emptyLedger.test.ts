// Policy check and show read the ledger of a store that does not exist yet through the empty ledger
// (src/services/Ledger/empty.ts), which loads no SQLite. It must answer every call exactly as the
// SQLite ledger answers over the build's empty store image, the plain way those commands read it before.
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Chunk, Context, Effect, Either, Layer, Stream } from "effect"
import fc from "fast-check"
import { resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { emptyLedger } from "../../src/services/Ledger/empty"
import { Ledger, type LedgerFilter, type LedgerService, type NewLedgerRow } from "../../src/services/Ledger/Ledger"
import * as LedgerSqlite from "../../src/services/Ledger/sqlite"
import { EMPTY_STORE_IMAGE } from "../../src/services/StateStore/StateStore"
import * as StateStore from "../../src/services/StateStore/StateStore"
import { PCLI_BIN } from "../support/cli"

const image = resolve(PCLI_BIN, "..", EMPTY_STORE_IMAGE)
const imageLedger = LedgerSqlite.layer.pipe(Layer.provide(StateStore.layer(image, "read")), Layer.provide(NodeContext.layer), Layer.orDie)

const KINDS = ["evaluation", "escalation", "freeze", "unfreeze", "verification", "approval", "refusal"] as const
const date = fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true })
const filter: fc.Arbitrary<LedgerFilter> = fc.record(
  {
    since: date,
    until: date,
    principalId: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    models: fc.array(fc.string({ maxLength: 6 }), { minLength: 1, maxLength: 3 }),
    kinds: fc.uniqueArray(fc.constantFrom(...KINDS), { minLength: 1 }),
    planId: fc.string({ maxLength: 6 })
  },
  { requiredKeys: [] }
)

const row: NewLedgerRow = { kind: "evaluation", principal: "agent", principal_id: null, principal_id_source: "default", capability: "apply", model: "m", effect: "allow", rule_id: null, plan_id: null, reason: "r" }

/** Every read of one filter, and what a write gives, as plain data. */
const answers = (ledger: LedgerService, f: LedgerFilter, since: Date | undefined) =>
  Effect.all({
    list: ledger.list(f),
    query: Effect.map(Stream.runCollect(ledger.query(f)), Chunk.toReadonlyArray),
    count: ledger.count(f),
    outcomes: Effect.forEach(["principal", "rule", "scope"] as const, (by) => ledger.outcomes(by, f.kinds ?? KINDS, since)),
    groups: ledger.evaluationGroups(since),
    head: ledger.headHash,
    verify: ledger.verify,
    append: Effect.either(ledger.append(row)).pipe(Effect.map(Either.mapLeft((e) => ({ tag: e._tag, detail: e.detail })))),
    appendNone: Effect.either(ledger.appendAll([])).pipe(Effect.map(Either.mapLeft((e) => e.detail))),
    appendTwo: Effect.either(ledger.appendAll([row, row])).pipe(Effect.map(Either.mapLeft((e) => e.detail)))
  })

describe("the empty ledger (a store that does not exist yet)", () => {
  it("answers every read and write as the SQLite ledger over the empty store image", async () => {
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const real = Context.get(yield* Layer.build(imageLedger), Ledger)
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(filter, fc.option(date, { nil: undefined }), async (f, since) => {
                const [fast, plain] = await Effect.runPromise(Effect.all([answers(emptyLedger, f, since), answers(real, f, since)]))
                expect(fast).toEqual(plain)
              }),
              { numRuns: 60 }
            )
          )
        })
      )
    )
  })
})
