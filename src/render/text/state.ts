import type { StateInfoOutput, StateInitOutput, StateMigrateOutput } from "../../schemas/state"

export const stateInfoText = (o: StateInfoOutput): string =>
  [
    `state store: ${o.path}${o.exists ? "" : " (not created yet)"}`,
    `backend: ${o.backend}${o.schema === null ? "" : ` (schema ${o.schema})`}`,
    ...(o.role === null ? [] : [`role: ${o.role} (principal ${o.role_principal})`]),
    `schema version: ${o.schema_version}`,
    `ledger rows: ${o.ledger_rows}`
  ].join("\n")

export const stateInitText = (o: StateInitOutput): string =>
  [
    `state store: ${o.path} ${o.created ? "created" : "already there"} at schema version ${o.schema_version}`,
    ...(o.roles.length === 0 ? [] : [`principal roles: ${o.roles.join(", ")} (grant one to each login role)`])
  ].join("\n")

export const stateMigrateText = (o: StateMigrateOutput): string =>
  [
    `copied ${o.from} into ${o.to}`,
    ...o.tables.filter((t) => t.rows > 0).map((t) => `  ${t.table}: ${t.rows} rows`),
    `ledger chain on arrival: ${o.chain_intact ? "intact" : "BROKEN"} (${o.ledger_rows} rows, head ${o.head_hash})`
  ].join("\n")
