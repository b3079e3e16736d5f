import type { PlaygroundOutput } from "../schemas/playground"
import { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import { PlaygroundNotEmpty, PlaygroundWriteFailed } from "../services/Project/errors"

const sidecar = (name: string, schema: string, layer: string, body = "", intent = "") =>
  `name = "${name}"\nintent = "${intent}"\n${body}\n[target]\ncatalog = "warehouse"\nschema = "${schema}"\ntable = "${name}"\n\n[tags]\nlayer = "${layer}"\n`

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
    )}\n[freshness]\nmax_lag_seconds = 86400\ntime_column = "ordered_at"\n\n[[tests]]\ntype = "not_null"\ncolumn = "customer_id"\n\n[[tests]]\ntype = "unique"\ncolumn = "order_id"\n\n[[tests]]\ntype = "expression"\nexpression = "amount > 0"\n\n[[tests]]\ntype = "row_count_range"\nmin = 1\nseverity = "warning"\n`
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
  [".gitignore", ".pcli/\nmodels/.pcli-state.sqlite*\n"]
]

/**
 * Writes the playground project into `dir` (created if missing). Refuses a directory that
 * already has entries, so nothing of the user's is overwritten.
 */
export const writePlayground = (
  dir: string
): Effect.Effect<ReadonlyArray<string>, PlaygroundNotEmpty | PlaygroundWriteFailed, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const fail = (p: string) => (e: { message: string }) => new PlaygroundWriteFailed({ path: p, detail: e.message })
    const exists = yield* fs.exists(dir).pipe(Effect.mapError(fail(dir)))
    if (exists) {
      const entries = yield* fs.readDirectory(dir).pipe(Effect.mapError(fail(dir)))
      if (entries.length > 0) return yield* new PlaygroundNotEmpty({ dir })
    }
    const written: Array<string> = []
    for (const [relative, text] of playgroundFiles) {
      const file = path.join(dir, relative)
      yield* fs.makeDirectory(path.dirname(file), { recursive: true }).pipe(Effect.mapError(fail(file)))
      yield* fs.writeFileString(file, text).pipe(Effect.mapError(fail(file)))
      written.push(relative)
    }
    return written
  })

/** `pcli playground <dir>`: the sample project, written into an empty or new directory. */
export const playground = (input: { readonly dir: string; readonly cwd: string }) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const dir = path.resolve(input.cwd, input.dir)
    const files = yield* writePlayground(dir)
    const out: PlaygroundOutput = { command: "playground", dir, files }
    return out
  })
