import { DuckDBInstance } from "@duckdb/node-api"
import { rmSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { holdDuckDbFile, release } from "../warehouse/lockHolder"
import { makeProject, runCli } from "../support/cli"

// decisions 35's witness read in both places `audit --verify` can run: the light entry, whose warehouse record is
// read on the worker the bin starts (`--output json`), and the full bundle, which reads it on the main thread
// (`--output=json` is not a light line). Whatever is done to the record, both must say the same, byte for byte.
let cwd = ""
const warehouse = () => join(cwd, ".pcli/warehouse.duckdb")
const pcli = (args: ReadonlyArray<string>) => runCli(args, { cwd, env: { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" } })

const onWarehouse = async (sql: string) => {
  const instance = await DuckDBInstance.create(warehouse())
  const connection = await instance.connect()
  try {
    await connection.run(sql)
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}

/** The two forms' outcomes, checked equal; the light one's returned. */
const verify = async () => {
  const light = await pcli(["audit", "--verify", "--output", "json"])
  const full = await pcli(["audit", "--verify", "--output=json"])
  // A locked file's retry notices: the same lines, apart from their time, jittered delay and fiber number.
  const notice = (stderr: string) => stderr.replace(/timestamp=\S+|fiber=#\d+|delay_ms=\d+| in [\d.]+s: /g, "_")
  const same = (r: { code: number; stdout: string; stderr: string }) => ({ code: r.code, stdout: r.stdout, stderr: notice(r.stderr) })
  expect(same(full)).toEqual(same(light))
  return { ...light, out: JSON.parse(light.stdout) as { intact: boolean; witnesses?: ReadonlyArray<{ source: string; status: string; detail?: string }> } }
}

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "allow"\n`,
    "models/stg_orders.sql": "SELECT 1 AS id",
    "models/stg_orders.toml": `name = "stg_orders"\n[target]\ncatalog = "w"\nschema = "stg"\ntable = "stg_orders"\n`
  })
  const built = await pcli(["run"])
  expect(built.code, built.stderr).toBe(0)
  const frozen = await pcli(["policy", "freeze", "--scope", "layer=stg", "--reason", "witness"])
  expect(frozen.code, frozen.stderr).toBe(0)
})

describe("audit --verify's warehouse witness: the worker's read and the main thread's agree", () => {
  it("a record in the chain, then a record naming a hash not in it (ledger-truncated), then another store's record (governance-mismatch)", async () => {
    const intact = await verify()
    expect([intact.code, intact.out.intact, intact.out.witnesses?.map((w) => [w.source, w.status])]).toEqual([0, true, [["warehouse", "in_chain"]]])
    await onWarehouse(`UPDATE pcli.governance SET head_hash = '${"0".repeat(64)}'`)
    const truncated = await verify()
    expect([truncated.code, truncated.stderr]).toEqual([1, expect.stringContaining("error[ledger-truncated]")])
    expect(truncated.out.witnesses?.map((w) => w.status)).toEqual(["not_in_chain"])
    await onWarehouse("UPDATE pcli.governance SET head_hash = 'x', store_id = 'another-store'")
    const other = await verify()
    expect([other.code, other.stderr]).toEqual([1, expect.stringContaining("error[governance-mismatch]")])
  })

  it("a line refused at once (a usage error) exits 2 every time: the process never exits while the worker is still loading DuckDB", async () => {
    // Before the worker held the process until loaded, about half of these aborted (SIGABRT) instead.
    const codes = await Promise.all(Array.from({ length: 8 }, () => pcli(["audit", "--verify", "--since", "1d"]).then((r) => [r.code, r.stderr.trim()])))
    expect(codes).toEqual(Array.from({ length: 8 }, () => [2, "error[usage]: --verify conflicts with --since"]))
  })

  it("a warehouse held by another process is reported unreadable by both; a dropped record and a removed file are no witness", async () => {
    const holder = await holdDuckDbFile(warehouse())
    try {
      const locked = await verify()
      expect(locked.out.witnesses).toEqual([{ source: "warehouse", seq: null, hash: null, status: "unreadable", detail: expect.stringContaining(`locked by another process (PID ${holder.pid})`) }])
    } finally {
      await release(holder)
    }
    await onWarehouse("DROP TABLE pcli.governance")
    expect((await verify()).out.witnesses).toBeUndefined()
    rmSync(warehouse())
    rmSync(`${warehouse()}.wal`, { force: true })
    const removed = await verify()
    expect([removed.code, removed.out.intact, removed.out.witnesses]).toEqual([0, true, undefined])
  })
})
