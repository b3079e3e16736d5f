import { Effect, Layer, Option, Stream } from "effect"
import { GENESIS_HASH } from "./chain"
import { Ledger, LedgerUnavailable } from "./Ledger"

const readOnly = () => new LedgerUnavailable({ detail: "attempt to write a readonly database" })

/**
 * The ledger of a state store that does not exist yet, as a read command sees it: no rows. It answers
 * what the SQLite ledger answers over the build's empty store image (test/policy/emptyLedger.test.ts
 * compares the two), without loading SQLite, which costs a read command much of its start-up.
 */
export const emptyLedger = Ledger.of({
  // A read command opens the image read-only: a write is refused as SQLite refuses it (an empty batch writes nothing).
  append: () => Effect.fail(readOnly()),
  appendAll: (rows) => (rows.length === 0 ? Effect.succeed([]) : Effect.fail(readOnly())),
  appendSealed: () => Effect.fail(readOnly()),
  chainedAt: () => Effect.succeed(Option.none()),
  query: () => Stream.empty,
  count: () => Effect.succeed(0),
  outcomes: () => Effect.succeed([]),
  evaluationGroups: () => Effect.succeed([]),
  list: () => Effect.succeed([]),
  verify: Effect.succeed({ intact: true, rows: 0, head_hash: GENESIS_HASH, first_bad: null }),
  headHash: Effect.succeed(GENESIS_HASH)
})

export const emptyLayer = Layer.succeed(Ledger, emptyLedger)
