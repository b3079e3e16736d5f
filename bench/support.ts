import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { LedgerRow } from "../src/schemas/ledger"
import { createBLAKE3 } from "hash-wasm"
import { canonicalRow, GENESIS_HASH } from "../src/services/Ledger/chain"
import { spawnSync } from "node:child_process"

/** Wall time of one process run, in milliseconds. */
export const timeProcess = (command: string, args: ReadonlyArray<string>, cwd?: string) => {
  const start = process.hrtime.bigint()
  const r = spawnSync(command, args, { cwd, stdio: "ignore" })
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0 && r.status !== 1) throw new Error(`${command} ${args.join(" ")} exited ${r.status}`)
  return ms
}

export const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

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
    const hasher = yield* Effect.promise(() => createBLAKE3())
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
