import type { Migration } from "../Migration"

/** Reads by kind (the freezes every policy read and gate consults, the scorecard's evaluations) use an index, not a scan. */
export const migration: Migration = {
  version: 10,
  name: "ledger kind index",
  statements: [`CREATE INDEX ledger_kind ON ledger (kind, seq)`]
}
