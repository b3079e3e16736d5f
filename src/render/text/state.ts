import type { StateInfoOutput } from "../../schemas/state"

export const stateInfoText = (o: StateInfoOutput): string =>
  [`state store: ${o.path}${o.exists ? "" : " (not created yet)"}`, `schema version: ${o.schema_version}`, `ledger rows: ${o.ledger_rows}`].join("\n")
