import { Either, ParseResult, Schema } from "effect"
import { LedgerRow } from "../../schemas/ledger"
import { lazy } from "../../platform/lazy"

// The ledger's row decoder on the read path: a hand-written one beside the Schema definition it must
// agree with (the reference; test/reports/encoding.property.test.ts).

/** A row as the store holds it: `principal_id_verified` is the integer 0, or 1 for an id PostgreSQL verified (decisions.md 36). */
export const StoredRow = Schema.Struct({
  ...LedgerRow.fields,
  principal_id_verified: Schema.transformLiterals([0, false], [1, true])
})

/** The reference decoder: Schema's, with its error. */
// Compiled on first use, not at start-up.
const storedDecoder = lazy(() => Schema.decodeUnknownEither(StoredRow))
export const decodeStoredReference = (row: unknown) => storedDecoder()(row)

const KINDS = new Set<unknown>(LedgerRow.fields.kind.literals)
const PRINCIPALS = new Set<unknown>(LedgerRow.fields.principal.literals)
const ID_SOURCES = new Set<unknown>(LedgerRow.fields.principal_id_source.members[0].literals)
const EFFECTS = new Set<unknown>(LedgerRow.fields.effect.members[0].literals)

/** The stored columns a read selects, in the row's field order (after `seq`). */
export const STORED_COLUMNS = Object.keys(StoredRow.fields) as ReadonlyArray<keyof typeof StoredRow.fields>

const text = (v: unknown): v is string => typeof v === "string"
const textOrNull = (v: unknown): v is string | null => v === null || typeof v === "string"
const oneOfOrNull = (set: Set<unknown>, v: unknown) => v === null || set.has(v)

/** The values of STORED_COLUMNS as an object: what the reference decodes. */
export const storedObject = (values: ReadonlyArray<unknown>, from = 0): Record<string, unknown> =>
  Object.fromEntries(STORED_COLUMNS.map((column, i) => [column, values[from + i]]))

/**
 * The fast decoder, over the values of STORED_COLUMNS (starting at `from`): the row with its keys in schema order, or
 * undefined when any value is not what the schema accepts (the caller then asks the reference, for
 * its error). No Effect, no parser, no intermediate object.
 */
export const decodeStoredFast = (v: ReadonlyArray<unknown>, from = 0): LedgerRow | undefined => {
  const decision_ref = v[from], kind = v[from + 1], timestamp = v[from + 2], principal = v[from + 3], principal_id = v[from + 4]
  const principal_id_source = v[from + 5], principal_id_verified = v[from + 6], target_principal = v[from + 7], capability = v[from + 8]
  const model = v[from + 9], effect = v[from + 10], rule_id = v[from + 11], plan_id = v[from + 12], reason = v[from + 13]
  if (
    v.length !== from + STORED_COLUMNS.length ||
    !text(decision_ref) ||
    !KINDS.has(kind) ||
    !text(timestamp) ||
    !PRINCIPALS.has(principal) ||
    !textOrNull(principal_id) ||
    !oneOfOrNull(ID_SOURCES, principal_id_source) ||
    (principal_id_verified !== 0 && principal_id_verified !== 1) ||
    !oneOfOrNull(PRINCIPALS, target_principal) ||
    !textOrNull(capability) ||
    !textOrNull(model) ||
    !oneOfOrNull(EFFECTS, effect) ||
    !(rule_id === null || Number.isSafeInteger(rule_id)) ||
    !textOrNull(plan_id) ||
    !textOrNull(reason)
  ) {
    return undefined
  }
  return {
    decision_ref,
    kind,
    timestamp,
    principal,
    principal_id,
    principal_id_source,
    principal_id_verified: principal_id_verified === 1,
    target_principal,
    capability,
    model,
    effect,
    rule_id,
    plan_id,
    reason
  } as LedgerRow
}

/** A stored row decoded: the fast path, and Schema's verdict whenever the fast path declines. */
export const decodeStored = (values: ReadonlyArray<unknown>, from = 0): Either.Either<LedgerRow, ParseResult.ParseError> => {
  const row = decodeStoredFast(values, from)
  return row === undefined ? decodeStoredReference(storedObject(values, from)) : Either.right(row)
}
