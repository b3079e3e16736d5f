// Round trip of the MCP `policy_check` tool over stdio (1,000 calls after warm-up), beside an MCP
// `ping` measured in the same run as the baseline. Target: policy_check p99 <= 5 ms.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { printTable } from "./support"

const CALLS = 1000
const WARMUP = 200
const TARGET_P99 = 5

const rule = (i: number) => `[[policy.rules]]\nprincipal = "agent"\ncapability = "apply"\neffect = "${i % 2 === 0 ? "allow" : "require_review"}"\nscope = { models = ["m${i}_*"] }\n`
const dir = mkdtempSync(join(tmpdir(), "pcli-bench-mcp-"))
mkdirSync(join(dir, "models"))
writeFileSync(join(dir, "pcli.toml"), `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n\n${Array.from({ length: 20 }, (_, i) => rule(i)).join("\n")}`)
for (let i = 0; i < 20; i++) {
  writeFileSync(join(dir, "models", `m${i}.sql`), i === 0 ? "SELECT 1 AS id" : `SELECT id FROM s.m${i - 1}`)
  writeFileSync(join(dir, "models", `m${i}.toml`), `name = "m${i}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "m${i}"\n[tags]\nlayer = "l${i % 3}"\n`)
}

const transport = new StdioClientTransport({ command: process.execPath, args: [resolve("dist/pcli.cjs"), "mcp", "--profile", "bench"], cwd: dir, stderr: "inherit" })
const client = new Client({ name: "pcli-bench", version: "1.0.0" })
await client.connect(transport)

const check = () => client.callTool({ name: "policy_check", arguments: { principal: "agent", capability: "apply", model: "m7" } })
const ping = () => client.ping()

for (let i = 0; i < WARMUP; i++) await check(), await ping()

// Interleaved, so a burst of load on the machine hits both alike.
const times: Record<"ping" | "check", Array<number>> = { ping: [], check: [] }
for (let i = 0; i < CALLS; i++) {
  let t = performance.now()
  await ping()
  times.ping.push(performance.now() - t)
  t = performance.now()
  const r = (await check()) as { isError?: boolean }
  times.check.push(performance.now() - t)
  if (r.isError === true) throw new Error(`policy_check failed: ${JSON.stringify(r)}`)
}
await client.close()
rmSync(dir, { recursive: true, force: true })

const stats = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, p99: sorted[Math.ceil(sorted.length * 0.99) - 1]! }
}
const base = stats(times.ping)
const checked = stats(times.check)
printTable(
  ["call (1,000 each)", "mean ms", "p99 ms", "mean ratio", "target"],
  [
    ["MCP ping (baseline)", base.mean.toFixed(2), base.p99.toFixed(2), "1.00", "-"],
    ["policy_check", checked.mean.toFixed(2), checked.p99.toFixed(2), (checked.mean / base.mean).toFixed(2), checked.p99 <= TARGET_P99 ? `ok (p99 <= ${TARGET_P99} ms)` : `OVER (p99 > ${TARGET_P99} ms)`]
  ]
)
