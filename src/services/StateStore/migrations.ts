import type { Migration } from "./Migration"
import { CURRENT_SCHEMA_VERSION } from "./schemaVersion"
import { migration as ledger } from "./migrations/001_ledger"
import { migration as pipeline } from "./migrations/002_pipeline"
import { migration as ledgerTarget } from "./migrations/003_ledger_target"
import { migration as products } from "./migrations/004_products"
import { migration as ledgerChain } from "./migrations/005_ledger_chain"
import { migration as tombstones } from "./migrations/006_tombstones"
import { migration as runPlanLink } from "./migrations/007_run_plan_link"
import { migration as incremental } from "./migrations/008_incremental"
import { migration as ledgerReports } from "./migrations/009_ledger_reports"
import { migration as buildAttributes } from "./migrations/010_build_attributes"
import { migration as planApplies } from "./migrations/011_plan_applies"
import { migration as storeId } from "./migrations/012_store_id"
import { migration as environments } from "./migrations/013_environments"
import { migration as freshnessChecks } from "./migrations/014_freshness_checks"
import { migration as physicalTables } from "./migrations/015_physical_tables"

/** Every migration, in version order. The last version is the store's current version. */
export const migrations: ReadonlyArray<Migration> = [
  ledger,
  pipeline,
  ledgerTarget,
  products,
  ledgerChain,
  tombstones,
  runPlanLink,
  incremental,
  ledgerReports,
  buildAttributes,
  planApplies,
  storeId,
  environments,
  freshnessChecks,
  physicalTables
]

// The current version lives in schemaVersion.ts (test/foundation/schemaVersion.test.ts checks it is the last migration's).
export { CURRENT_SCHEMA_VERSION }
