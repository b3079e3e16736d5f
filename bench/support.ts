import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { LedgerRow } from "../src/schemas/ledger"
import { createBlake3Hasher } from "../src/platform/blake3"
import { canonicalRow, GENESIS_HASH } from "../src/services/Ledger/chain"
import { spawnSync } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

/** Wall time of one process run, in milliseconds. */
export const timeProcess = (command: string, args: ReadonlyArray<string>, cwd?: string, env?: NodeJS.ProcessEnv) => {
  const start = process.hrtime.bigint()
  const r = spawnSync(command, args, { cwd, stdio: "ignore", ...(env === undefined ? {} : { env }) })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(" ")} exited ${r.status}`)
  return ms
}

export const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

/** "min–max" of samples, the spread printed beside a median. */
export const spread = (xs: ReadonlyArray<number>, digits = 0) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`

/** Prints rows as a Markdown table. */
export const printTable = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>) => {
  const cells = [header, ...rows.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)))
  const line = (r: ReadonlyArray<string>) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  console.log(line(header))
  console.log(`| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`)
  for (const r of cells.slice(1)) console.log(line(r))
}

/** One generated ledger row, before chaining. */
export type SeedRow = Omit<LedgerRow, "principal_id_verified" | "target_principal">

/**
 * Inserts `count` generated rows, chained exactly as appends chain them (so `--verify` walks an
 * intact chain), in one transaction: a bench measures reads, not a million fsyncs.
 */
export const seedChainedLedger = (count: number, rowAt: (n: number) => SeedRow, batch = 2000) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // hash-wasm BLAKE3, property-tested equal to the noble hash appends use and ~15x faster: a million rows to chain.
    const hasher = yield* Effect.promise(() => createBlake3Hasher())
    const encoder = new TextEncoder()
    let previous = GENESIS_HASH
    yield* sql.withTransaction(
      Effect.gen(function* () {
        for (let i = 0; i < count; i += batch) {
          const rows = Array.from({ length: Math.min(batch, count - i) }, (_, k) => {
            const row = rowAt(i + k)
            previous = hasher.init().update(encoder.encode(previous + canonicalRow({ ...row, principal_id_verified: false, target_principal: null }))).digest("hex")
            return { ...row, row_hash: previous }
          })
          yield* sql`INSERT INTO ledger ${sql.insert(rows)}`
        }
      })
    )
  })

/**
 * A layered project: ~10% roots (some reading a declared source), each other model reads 1-3
 * earlier models (joins, CTEs, a subquery); sidecars carry tags and tests, every 5th model has a
 * contract and every 8th a depends_on.
 */
export const generateProject = (dir: string, count: number): string => {
  const models = NodePath.join(dir, "models")
  NodeFs.mkdirSync(models, { recursive: true })
  let seed = 42
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const modelName = (i: number) => `m${String(i).padStart(5, "0")}`
  for (let i = 0; i < count; i++) {
    const name = modelName(i)
    let sql: string
    let extra = ""
    if (i < Math.max(1, Math.floor(count / 10))) {
      if (i % 3 === 0) {
        sql = `SELECT id, id % 7 AS k, kind AS label FROM ext.events WHERE kind <> 'noise'`
        extra = `\n[[sources]]\nschema = "ext"\ntable = "events"\n`
      } else {
        sql = `SELECT range AS id, range % 7 AS k, 'v' || range AS label FROM range(100)`
      }
    } else {
      const picks = new Set<number>()
      const n = Math.min(i, 1 + Math.floor(rand() * 3))
      while (picks.size < n) picks.add(Math.floor(rand() * i))
      const [first, ...rest] = [...picks].map((p) => `main.${modelName(p)}`)
      const joins = rest.map((t, j) => `JOIN ${t} t${j + 1} USING (id)`).join("\n")
      const filter = i % 4 === 0 ? `\n  AND id IN (SELECT id FROM ${first} WHERE k > 2)` : ""
      sql = `WITH base AS (\n  SELECT t0.id, t0.k, t0.label FROM ${first} t0\n  ${joins}\n)\nSELECT id, k, upper(label) AS label, count(*) OVER (PARTITION BY k) AS n\nFROM base\nWHERE id % 3 <> 1${filter}`
      if (i % 8 === 0) extra = `depends_on = ["${modelName(Math.floor(rand() * i))}"]\n`
    }
    const dependsOn = extra.startsWith("depends_on") ? extra : ""
    const sources = extra.startsWith("depends_on") ? "" : extra
    NodeFs.writeFileSync(NodePath.join(models, `${name}.sql`), sql)
    NodeFs.writeFileSync(
      NodePath.join(models, `${name}.toml`),
      `name = "${name}"\nintent = "generated"\n${dependsOn}\n[target]\ncatalog = "warehouse"\nschema = "main"\ntable = "${name}"\n\n` +
        `[tags]\nlayer = "l${i % 4}"\nowner = "team-${i % 7}"\n\n` +
        `[[tests]]\ntype = "not_null"\ncolumn = "id"\n\n[[tests]]\ntype = "unique"\ncolumn = "id"\nseverity = "warning"\n\n` +
        `[[tests]]\ntype = "accepted_values"\ncolumn = "k"\nvalues = [0, 1, 2, 3, 4, 5, 6]\n${sources}`
    )
    if (i % 5 === 0) {
      NodeFs.writeFileSync(
        NodePath.join(models, `${name}.contract.toml`),
        `[[columns]]\nname = "id"\ntype = "BIGINT"\nnullable = false\n\n[[columns]]\nname = "k"\ntype = "BIGINT"\nnullable = true\n\n` +
          `[[columns]]\nname = "label"\ntype = "VARCHAR"\nnullable = true\n\n[rules]\nrequired = ["id"]\n`
      )
    }
  }
  return models
}
