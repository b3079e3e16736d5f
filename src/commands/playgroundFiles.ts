// The playground project's files: a raw -> staging -> mart project, a data product and the tour's edit.
const sidecar = (name: string, schema: string, layer: string, body = "", intent = "") =>
  `name = "${name}"\nintent = "${intent}"\n${body}\n[target]\ncatalog = "warehouse"\nschema = "${schema}"\ntable = "${name}"\n\n[tags]\nlayer = "${layer}"\n`


/** The data product: its spec is lowered by `pcli product compile` when the playground is written. */
export const PLAYGROUND_PRODUCT = "revenue_by_region"

const PRODUCT_SPEC = `spec_version = 0

[product]
name = "revenue_by_region"
intent = "Revenue and order count per customer region, for the sales dashboard"

[product.source]
tables = ["warehouse.staging.stg_orders", "warehouse.staging.stg_customers"]

[product.output]
grain = ["region"]
checks = ["revenue >= 0"]

[[product.output.columns]]
name = "region"
type = "String"
nullable = false

[[product.output.columns]]
name = "orders"
type = "Int64"
nullable = false

[[product.output.columns]]
name = "revenue"
type = "Decimal(38,2)"
nullable = false

[[product.output.columns]]
name = "refreshed_at"
type = "Timestamp"
nullable = false

[product.output.freshness]
max_lag = "24h"
time_column = "refreshed_at"
severity = "warning"

[product.trust]
agent = "propose_only"
`

/** The product model's SQL and the sidecar keys the spec does not own, written between the two lowering phases. */
export const productModelFiles: ReadonlyArray<readonly [string, string]> = [
  [
    "models/revenue_by_region.sql",
    `SELECT c.region, count(*) AS orders, sum(o.amount) AS revenue, now()::TIMESTAMP AS refreshed_at
FROM staging.stg_orders o
JOIN staging.stg_customers c USING (customer_id)
GROUP BY c.region
`
  ],
  ["models/revenue_by_region.toml", sidecar("revenue_by_region", "mart", "mart", "", "Revenue per region (the revenue_by_region data product)")]
]

/** The change the tour's agent makes to the contracted model: one added column. */
const TOUR_EDIT = `SELECT customer_id, customer_name, lower(email) AS email, region, upper(region) AS region_code, signed_up_on
FROM raw.raw_customers
`
/** The playground project, path → contents. Data is generated in SQL (deterministic, no external files). */
export const playgroundFiles: ReadonlyArray<readonly [string, string]> = [
  [
    "pcli.toml",
    `# pcli playground: raw -> staging -> mart on the embedded DuckDB warehouse.
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

[[policy.rules]]
principal = "agent"
capability = "schema_change.additive"
effect = "allow"
scope = { layer = "staging", exclude_classifications = ["pii"], max_downstreams = 5 }

[[policy.rules]]
principal = "agent"
capability = "value_change"
effect = "require_review"
scope = { layer = "mart" }

# The data product's authoring lane (what pcli product verify asks for).
[[policy.rules]]
principal = "agent"
capability = "propose"
effect = "allow"
scope = { models = ["revenue_by_region"] }

[[policy.rules]]
principal = "agent"
capability = "apply"
effect = "require_review"
scope = { models = ["revenue_by_region"] }

[[policy.tests]]
name = "agents cannot apply to a contracted model"
principal = "agent"
capability = "apply"
model = "stg_customers"
contracted = true
expect = "deny"
`
  ],
  [
    "models/raw_customers.sql",
    `-- 200 customers with deterministic pseudo-random attributes
SELECT
  range AS customer_id,
  'customer_' || lpad(range::VARCHAR, 4, '0') AS customer_name,
  'user' || range || '@example.com' AS email,
  ['north', 'south', 'east', 'west'][1 + (hash(range, 'region') % 4)::INTEGER] AS region,
  DATE '2023-01-01' + (hash(range, 'signup') % 365)::INTEGER AS signed_up_on
FROM range(1, 201)
`
  ],
  ["models/raw_customers.toml", sidecar("raw_customers", "raw", "raw", "", "Generated customer master data")],
  [
    "models/raw_orders.sql",
    `-- 5,000 orders over January-March 2024; content-addressed, so the same recipe gives the same bytes
SELECT
  range AS order_id,
  1 + hash(range, 'customer') % 200 AS customer_id,
  TIMESTAMP '2024-01-01' + to_minutes((hash(range, 'minute') % (91 * 24 * 60))::BIGINT) AS ordered_at,
  round(5 + (hash(range, 'amount') % 50000) / 100.0, 2)::DECIMAL(10, 2) AS amount,
  ['placed', 'shipped', 'delivered', 'returned'][1 + (hash(range, 'status') % 4)::INTEGER] AS status
FROM range(1, 5001)
`
  ],
  [
    "models/raw_orders.toml",
    sidecar(
      "raw_orders",
      "raw",
      "raw",
      `\n[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts/raw_orders"\n`,
      "Generated order events, content-addressed"
    )
  ],
  [
    "models/stg_customers.sql",
    `SELECT customer_id, customer_name, lower(email) AS email, region, signed_up_on
FROM raw.raw_customers
`
  ],
  [
    "models/stg_customers.toml",
    `${sidecar(
      "stg_customers",
      "staging",
      "staging",
      "",
      "Cleaned customers"
    )}\n[classification]\nemail = "pii"\n\n[[tests]]\ntype = "unique"\ncolumn = "customer_id"\n\n[[tests]]\ntype = "accepted_values"\ncolumn = "region"\nvalues = ["north", "south", "east", "west"]\n`
  ],
  [
    "models/stg_customers.contract.toml",
    `[[columns]]\nname = "customer_id"\ntype = "BIGINT"\nnullable = false\n\n[[columns]]\nname = "email"\ntype = "VARCHAR"\nnullable = false\n\n[rules]\nrequired = ["customer_id", "email"]\n`
  ],
  [
    "models/stg_orders.sql",
    `SELECT order_id, customer_id, ordered_at, amount, status
FROM raw.raw_orders
WHERE status <> 'returned'
`
  ],
  [
    "models/stg_orders.toml",
    `${sidecar(
      "stg_orders",
      "staging",
      "staging",
      "",
      "Orders that count towards revenue"
    )}\n[[tests]]\ntype = "not_null"\ncolumn = "customer_id"\n\n[[tests]]\ntype = "unique"\ncolumn = "order_id"\n\n[[tests]]\ntype = "expression"\nexpression = "amount > 0"\n\n[[tests]]\ntype = "row_count_range"\nmin = 1\nseverity = "warning"\n`
  ],
  [
    "models/mart_daily_revenue.sql",
    `SELECT date_trunc('day', ordered_at) AS order_day, count(*) AS orders, sum(amount) AS revenue
FROM staging.stg_orders
WHERE ordered_at >= @start_date AND ordered_at < @end_date
GROUP BY 1
`
  ],
  [
    "models/mart_daily_revenue.toml",
    `${sidecar(
      "mart_daily_revenue",
      "mart",
      "mart",
      `\n[strategy]\ntype = "time_interval"\ntime_column = "order_day"\ngranularity = "day"\nfirst_partition = "2024-01-01"\n`,
      "Revenue per day, rebuilt per partition"
    )}\n[[tests]]\ntype = "unique"\ncolumn = "order_day"\n`
  ],
  [
    "models/mart_customer_ltv.sql",
    `SELECT c.customer_id, c.region, count(o.order_id) AS orders, coalesce(sum(o.amount), 0) AS lifetime_value
FROM staging.stg_customers c
LEFT JOIN staging.stg_orders o USING (customer_id)
GROUP BY ALL
`
  ],
  [
    "models/mart_customer_ltv.toml",
    `${sidecar(
      "mart_customer_ltv",
      "mart",
      "mart",
      "",
      "Lifetime value per customer"
    )}\n[[tests]]\ntype = "unique"\ncolumn = "customer_id"\n`
  ],
  ["products/revenue_by_region.toml", PRODUCT_SPEC],
  ["tour/stg_customers.sql", TOUR_EDIT],
  [".gitignore", ".pcli/\nmodels/.pcli-state.sqlite*\nartifacts/\n"]
]
