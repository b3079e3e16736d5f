// `pcli audit --verify` apart from the list: the witnesses (the warehouse record, DuckDB) load only for it.
import { Effect } from "effect"
import type { AuditVerifyOutput } from "../schemas/audit"
import { checkWitnesses, parseExpectHead, readOutsideRecords } from "../services/Governance/witness"
import { ledgerHead } from "../services/Ledger/head"
import { Ledger } from "../services/Ledger/Ledger"

/**
 * `pcli audit --verify [--expect-head SEQ:HASH]`: recompute the chain, then check the heads witnessed
 * outside the store (the warehouse record, the pin) are in it; the CLI exits 1 when it is broken.
 */
export const auditVerify = (input: { readonly expectHead?: string | undefined } = {}) =>
  Effect.gen(function* () {
    const pin = input.expectHead === undefined ? undefined : yield* parseExpectHead(input.expectHead)
    // The witnesses are read while the chain is walked (the warehouse opens on DuckDB's threads meanwhile).
    const [records, chain] = yield* Effect.all([readOutsideRecords, Effect.flatMap(Ledger, (l) => l.verify)], { concurrency: 2 })
    const report = yield* checkWitnesses(chain, pin, records)
    const head = report.intact ? yield* ledgerHead : undefined
    const out: AuditVerifyOutput = { command: "audit_verify", ...report, ...(head === undefined ? {} : { head_seq: head.seq }) }
    return out
  })
