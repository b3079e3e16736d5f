import { DuckDBInstance } from "@duckdb/node-api"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"

// decisions 35 (issue 32 items 5 and 6): the warehouse names its governor and witnesses the ledger head.
const sqlite = (path: string, sql: string) => execFileSync("sqlite3", [path, sql], { encoding: "utf8" }).trim()
const sidecar = (name: string, layer: string) => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "${layer}"\ntable = "${name}"\n[tags]\nlayer = "${layer}"\n`

const agent = { PCLI_PRINCIPAL: "agent", PCLI_PRINCIPAL_ID: "bot-1" }
const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }

let cwd = ""
let store = ""
const pcli = (args: ReadonlyArray<string>, env: Record<string, string> = human) => runCli(args, { cwd, env })

/** The frozen mart's rows, read from the warehouse file (read-only, closed before the next command). */
const martIds = async (): Promise<ReadonlyArray<number>> => {
  const instance = await DuckDBInstance.create(join(cwd, ".pcli/warehouse.duckdb"), { access_mode: "READ_ONLY" })
  const connection = await instance.connect()
  try {
    return (await connection.runAndReadAll("SELECT id FROM mart.mart_orders ORDER BY id")).getRows().map((r) => Number(r[0]))
  } finally {
    connection.closeSync()
    instance.closeSync()
  }
}
const lastReason = (path: string) => sqlite(path, "SELECT reason FROM ledger ORDER BY seq DESC LIMIT 1")

beforeAll(async () => {
  cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "allow"\n`,
    // The attacker's config: the same warehouse file, no [policy].
    "alt/pcli.toml": `[adapter.local]\ntype = "embedded"\npath = "../.pcli/warehouse.duckdb"\n`,
    "models/stg_orders.sql": "SELECT 1 AS id",
    "models/stg_orders.toml": sidecar("stg_orders", "stg"),
    "models/mart_orders.sql": "SELECT id FROM stg.stg_orders",
    "models/mart_orders.toml": sidecar("mart_orders", "mart")
  })
  store = join(cwd, "models/.pcli-state.sqlite")
  // An object tier keeps a copy of the witness beside the freeze markers.
  mkdirSync(join(cwd, "tier"))
  writeFileSync(join(cwd, "pcli.toml"), `${readFileSync(join(cwd, "pcli.toml"), "utf8")}\n[state]\nobject_store_url = "${pathToFileURL(join(cwd, "tier"))}/"\n`)
  // The first governed build records the governor; the freeze (two rows: agent and human) advances the witnessed head.
  const built = await pcli(["run"])
  expect(built.code, built.stderr).toBe(0)
  const frozen = await pcli(["policy", "freeze", "--scope", "layer=mart", "--reason", "quarter close"])
  expect(frozen.code, frozen.stderr).toBe(0)
  // The agent's edit to the frozen mart.
  writeFileSync(join(cwd, "models/mart_orders.sql"), "SELECT 99 AS id")
})

describe("the warehouse names its governor (governance-mismatch)", () => {
  it("an agent swapping config, state path or namespace is refused, its one refusal row lands in the governing store, and it builds nothing", async () => {
    const swaps = [
      { args: ["--config", "alt/pcli.toml", "--models", "models"], ran: store, differs: "[policy]" },
      { args: ["--state-path", "elsewhere.sqlite"], ran: join(cwd, "elsewhere.sqlite"), differs: "state store" },
      { args: ["--state-namespace", "x"], ran: join(cwd, "models/.pcli-state/x.sqlite"), differs: "state store" }
    ]
    const rows = (path: string) => (existsSync(path) ? Number(sqlite(path, "SELECT count(*) FROM ledger")) : 0)
    for (const swap of swaps) {
      const [governing, chosen] = [rows(store), rows(swap.ran)]
      const r = await pcli(["run", "--full-refresh", ...swap.args], agent)
      expect([r.code, r.stderr], swap.args.join(" ")).toEqual([1, expect.stringContaining("error[governance-mismatch]")])
      expect(r.stderr).toContain(swap.differs)
      expect(r.stderr).not.toContain("OK mart_orders")
      // Asked before any model is evaluated: the refusal is the only row, in the store the warehouse names.
      expect(rows(store) - governing, swap.args.join(" ")).toBe(1)
      expect(lastReason(store)).toContain("refused [governance-mismatch]")
      if (swap.ran !== store) expect(rows(swap.ran) - chosen, swap.args.join(" ")).toBe(0)
    }
    expect(await martIds()).toEqual([1])
  })
})

describe("the ledger head is witnessed outside the store (ledger-truncated)", () => {
  it("--expect-head: a pin in the chain passes, another hash fails, a malformed value and a missing --verify are refused", async () => {
    const [seq, hash] = sqlite(store, "SELECT seq || ' ' || row_hash FROM ledger ORDER BY seq DESC LIMIT 1").split(" ")
    const pinned = await pcli(["audit", "--verify", "--expect-head", `${seq}:${hash}`, "--output", "json"])
    expect(pinned.code, pinned.stderr).toBe(0)
    const out = JSON.parse(pinned.stdout)
    expect(out).toMatchObject({ intact: true, head_seq: Number(seq), head_hash: hash })
    const witnessed = { seq: 2, hash: expect.stringMatching(/^[0-9a-f]{64}$/), status: "in_chain" }
    expect(out.witnesses).toEqual([
      { source: "warehouse", ...witnessed },
      { source: "object_tier", ...witnessed },
      { source: "expect_head", seq: Number(seq), hash, status: "in_chain" }
    ])
    const other = await pcli(["audit", "--verify", "--expect-head", `${seq}:${"0".repeat(64)}`])
    expect([other.code, other.stderr]).toEqual([1, expect.stringContaining("error[ledger-truncated]")])
    const malformed = await pcli(["audit", "--verify", "--expect-head", "12"])
    expect([malformed.code, malformed.stderr]).toEqual([1, expect.stringContaining("error[invalid-expect-head]")])
    const alone = await pcli(["audit", "--expect-head", `${seq}:${hash}`])
    expect([alone.code, alone.stderr]).toEqual([2, expect.stringContaining("--expect-head requires --verify")])
  })

  it("deleting the tail (both freezes) and resetting sqlite_sequence is ledger-truncated, naming the witnessed seq", async () => {
    sqlite(store, "DELETE FROM ledger WHERE seq >= 1; UPDATE sqlite_sequence SET seq = 0 WHERE name = 'ledger'")
    const r = await pcli(["audit", "--verify", "--output", "json"])
    expect([r.code, r.stderr]).toEqual([1, expect.stringContaining("error[ledger-truncated]")])
    expect(r.stderr).toContain("seq 2")
    const out = JSON.parse(r.stdout)
    expect(out).toMatchObject({ intact: false, first_bad: { seq: 2, reason: expect.stringContaining("truncated") } })
    expect(out.witnesses.map((w: { source: string; seq: number; status: string }) => [w.source, w.seq, w.status])).toEqual([
      ["warehouse", 2, "not_in_chain"],
      ["object_tier", 2, "not_in_chain"]
    ])
  })

  it("a human under another governor gets a one-line warning and proceeds", async () => {
    const r = await pcli(["run", "--full-refresh", "--config", "alt/pcli.toml", "--models", "models"])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.split("\n").filter((l) => l.includes("governance:"))).toEqual([expect.stringContaining("governed by another [policy]")])
    expect(await martIds()).toEqual([99])
  })
})
