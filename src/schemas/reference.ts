// The documents `pcli docs reference` prints: each a file format, its Schemas and a worked example.
import { Schema } from "effect"
import { Adapter } from "./adapters"
import { ProjectConfigFile } from "./config"
import { ModelContract, ModelSidecar } from "./model"
import { PolicyBlock, ScopeTable } from "./policy"
import { ProductSpecFile } from "./productSpec"
import type { ReferenceName } from "./referenceNames"

export interface ReferenceSection {
  readonly heading: string
  /** The TOML path the section's keys sit under (`""` for the file's top level). */
  readonly prefix: string
  readonly schema: Schema.Schema.Any
  /** Keys listed without their sub-keys, documented in a document of their own. */
  readonly summarized?: ReadonlyArray<string>
}

export interface ReferenceDocument {
  /** File stem under docs/reference/ and the `--document` value. */
  readonly name: ReferenceName
  readonly title: string
  readonly intro: ReadonlyArray<string>
  readonly sections: ReadonlyArray<ReferenceSection>
  readonly example: string
}

export const REFERENCE_DOCUMENTS: ReadonlyArray<ReferenceDocument> = [
  {
    name: "pcli-toml",
    title: "pcli.toml",
    intro: [
      "The project file. pcli finds the nearest `pcli.toml` (or `--config`); models live in `models/` beside it (or `--models`).",
      "The state store (plans' decisions, run history, the ledger) is `models/.pcli-state.sqlite` unless `[state]` or `--state-path` says otherwise; `.pcli/` holds plans, review markers and the embedded warehouse `.pcli/warehouse.duckdb`.",
      "`${VAR}` anywhere in the file is read from the environment. Secrets (`token`, `client_secret`, `api_secret`, `kv_url`) never appear in output."
    ],
    sections: [
      { heading: "Top level", prefix: "", schema: ProjectConfigFile, summarized: ["policy"] },
      { heading: "Adapters", prefix: "adapter.<name>", schema: Adapter }
    ],
    example: `[project]
name = "shop"

[adapter.local]
type = "embedded"
path = ".pcli/warehouse.duckdb"

[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { contracted = true }
`
  },
  {
    name: "model",
    title: "Model sidecar (models/<name>.toml)",
    intro: [
      "A model is two files with the same stem: `models/<name>.sql`, one SELECT, and `models/<name>.toml`, its sidecar. A `.sql` without a sidecar (or a sidecar whose `name` differs from the file name) is `model-file-mismatch`.",
      "The SQL reads other models by their target, `schema.table` (or `catalog.schema.table`): `SELECT * FROM staging.stg_orders`. pcli finds those references with DuckDB's parser and builds models in dependency order. A table no model builds must be listed in `[[sources]]`.",
      "`time_interval` models may use `@start_date` and `@end_date` in their SQL; `pcli run --from K --to K` and `pcli backfill` set them."
    ],
    sections: [{ heading: "Keys", prefix: "", schema: ModelSidecar }],
    example: `name = "stg_orders"
intent = "Orders that count towards revenue"

[target]
catalog = "warehouse"
schema = "staging"
table = "stg_orders"

[strategy]
type = "incremental"
timestamp_column = "ordered_at"

[tags]
layer = "staging"

[freshness]
max_lag_seconds = 86400
time_column = "ordered_at"

[[tests]]
type = "unique"
column = "order_id"

[[tests]]
type = "expression"
expression = "amount > 0"
severity = "warning"
`
  },
  {
    name: "contract",
    title: "Contract (models/<name>.contract.toml)",
    intro: [
      "A contract is a promise to the model's readers. Its presence makes the model *contracted*: policy scopes can name contracted models (`scope = { contracted = true }`), and removing a contract is a breaking change.",
      "After each build the table is checked against it: a missing required column, a type that cannot widen to the declared one, or a NULL in a non-nullable column fails the model (`contract-violation`) and the previous table stays published."
    ],
    sections: [{ heading: "Keys", prefix: "", schema: ModelContract }],
    example: `[[columns]]
name = "customer_id"
type = "BIGINT"
nullable = false

[[columns]]
name = "email"
type = "VARCHAR"
nullable = true

[rules]
required = ["customer_id"]
`
  },
  {
    name: "product",
    title: "Product spec (products/<name>.toml)",
    intro: [
      "A data product is a spec a human approves; pcli lowers it onto a model's contract and sidecar. The model's SQL (`models/<output model>.sql`) is still yours to write.",
      "Flow: `pcli product verify <name>` checks the spec against `[policy]` (it prints the `[policy]` rules to paste when they are missing). `pcli product compile <name>` first writes only the contract (`models/<model>.contract.toml`). Then write the model yourself: `models/<model>.sql` and a sidecar `models/<model>.toml` with `name` and `[target]`. Run `pcli product compile <name>` again: it merges the spec's sources, tags, freshness and tests into your sidecar. `pcli product approve <name>` records a human's approval; `pcli run` builds it.",
      "The spec's freshness is checked after the model builds (and by `pcli test`); `pcli brief` reports the latest check.",
      "Unknown keys are refused; types use pcli's vocabulary (`Int64`, `String`, `Timestamp`, …), not the warehouse's."
    ],
    sections: [{ heading: "Keys", prefix: "", schema: ProductSpecFile }],
    example: `spec_version = 0

[product]
name = "daily_revenue"
intent = "Revenue per day for finance"

[product.source]
tables = ["warehouse.staging.stg_orders"]

[product.output]
grain = ["order_day"]
checks = ["revenue >= 0"]

[[product.output.columns]]
name = "order_day"
type = "Timestamp"
nullable = false

[[product.output.columns]]
name = "revenue"
type = "Decimal(18,2)"
nullable = false

[product.output.freshness]
max_lag = "24h"
time_column = "order_day"
severity = "warning"

[product.trust]
agent = "propose_only"
`
  },
  {
    name: "policy",
    title: "Policy ([policy] in pcli.toml)",
    intro: [
      "`[policy]` says what humans and agents may do. Humans are allowed unless a rule says otherwise; an agent gets `default_agent_effect` when no rule matches. Agents are `PCLI_PRINCIPAL=agent` on the command line, and always under `pcli mcp`.",
      "`require_review` means a human approves the plan (`pcli review <id> --approve`) before `pcli apply <id>`. Every evaluation is recorded in the ledger: `pcli audit` lists them.",
      "`pcli policy check --principal agent --capability apply --model M` explains one decision; `pcli policy test` runs `[[policy.tests]]`."
    ],
    sections: [
      { heading: "Keys", prefix: "policy", schema: PolicyBlock },
      { heading: "Scope tables", prefix: "policy.rules[].scope", schema: ScopeTable }
    ],
    example: `[policy]
version = 1
default_agent_effect = "require_review"

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "deny"
scope = { contracted = true }

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "staging", exclude_classifications = ["pii"] }

[[policy.tests]]
name = "agents cannot apply to a contracted model"
principal = "agent"
capability = "apply"
model = "stg_customers"
contracted = true
expect = "deny"
`
  }
]
