/**
 * `pcli run` beside two floors on DuckDB, for generated projects of 100 and 1,000 models that
 * build real rows (10k-row roots from range()). Floors run the same SQL in topological order on
 * one connection in a fresh process: (a) the model SQL alone; (b) the model SQL plus the same
 * tests as separate queries. CPU = user+sys of the whole process (DuckDB's threads included).
 * Then peak RSS of `pcli run` at 2,000 models. Sizes: BENCH_SIZES (default 100,1000), BENCH_RSS_SIZE;
 * runs: BENCH_RUNS (default 5), BENCH_RSS_RUNS (default 5). Mixes: BENCH_MIX (today, realistic, default both; bench/projectMix.ts).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { testQuery } from "../src/services/Runner/tests"
import type { DataTest } from "../src/schemas/model"
import { describeMix, type Mix, mixesToRun, realisticModels, writeModels } from "./projectMix"
import { median, printTable, spread } from "./support"

const ROOT_ROWS = 10_000
const tests: ReadonlyArray<DataTest> = [
  { type: "not_null", column: "id", severity: "error" },
  { type: "unique", column: "id", severity: "error" },
  { type: "accepted_values", column: "k", values: [0, 1, 2, 3, 4, 5, 6], severity: "error" }
]

const name = (i: number) => `m${String(i).padStart(5, "0")}`

/** Model i reads 1-2 earlier models (so index order is topological); every 10th is a root. */
const modelSql = (i: number, rand: () => number): string => {
  if (i % 10 === 0) return `SELECT range AS id, range % 7 AS k, 'v' || range AS label FROM range(${ROOT_ROWS})`
  const a = name(Math.floor(rand() * i))
  const b = name(Math.floor(rand() * i))
  return a === b
    ? `SELECT id, (k + 1) % 7 AS k, label FROM main.${a}`
    : `SELECT t0.id, (t0.k + t1.k) % 7 AS k, t0.label FROM main.${a} t0 JOIN main.${b} t1 USING (id)`
}

/** A project of `count` models of the mix; returns a line describing its shapes. */
const generate = (dir: string, count: number, mix: Mix): string => {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, "pcli.toml"), `[adapter.local]\ntype = "embedded"\npath = ".pcli/warehouse.duckdb"\n`)
  if (mix === "realistic") {
    const models = realisticModels(count, ROOT_ROWS)
    writeModels(dir, models)
    return describeMix(models)
  }
  generateToday(dir, count)
  return "root or 1-2-way join / projection"
}

/** Today's shapes (before issue 37): a projection or one join per model. */
const generateToday = (dir: string, count: number): ReadonlyArray<string> => {
  const models = path.join(dir, "models")
  fs.mkdirSync(models, { recursive: true })
  let seed = 7
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const sqls: Array<string> = []
  for (let i = 0; i < count; i++) {
    const sql = modelSql(i, rand)
    sqls.push(sql)
    fs.writeFileSync(path.join(models, `${name(i)}.sql`), sql)
    fs.writeFileSync(
      path.join(models, `${name(i)}.toml`),
      `name = "${name(i)}"\n[target]\ncatalog = "warehouse"\nschema = "main"\ntable = "${name(i)}"\n\n` +
        `[[tests]]\ntype = "not_null"\ncolumn = "id"\n\n[[tests]]\ntype = "unique"\ncolumn = "id"\n\n` +
        `[[tests]]\ntype = "accepted_values"\ncolumn = "k"\nvalues = [0, 1, 2, 3, 4, 5, 6]\n`
    )
  }
  return sqls
}

interface Measure {
  readonly wall: number
  readonly cpu: number
  readonly rss: number
}

/** Runs a node process with a preload that reports its CPU and peak RSS at exit. */
const measure = (root: string, args: ReadonlyArray<string>, cwd: string): Measure => {
  const hook = path.join(root, "usage-hook.cjs")
  const report = path.join(root, "usage.json")
  fs.writeFileSync(
    hook,
    `process.on("exit", () => { const u = process.resourceUsage(); require("node:fs").writeFileSync(${JSON.stringify(report)}, JSON.stringify({ cpu: (u.userCPUTime + u.systemCPUTime) / 1000, rss: u.maxRSS / 1024 })) })\n`
  )
  const t0 = performance.now()
  // stderr is kept (pcli's per-model progress lines off a terminal) and shown only when the process fails.
  execFileSync(process.execPath, ["--require", hook, ...args], { cwd, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 30 })
  const wall = performance.now() - t0
  const usage = JSON.parse(fs.readFileSync(report, "utf8")) as { cpu: number; rss: number }
  return { wall, ...usage }
}

/** Child mode: the floor, on a fresh database file, one connection, topological (index) order. */
const floor = async (dir: string, withTests: boolean) => {
  const { DuckDBInstance } = await import("@duckdb/node-api")
  const instance = await DuckDBInstance.create(path.join(dir, "floor.duckdb"))
  const connection = await instance.connect()
  const models = path.join(dir, "models")
  const names = fs.readdirSync(models).filter((f) => f.endsWith(".sql")).map((f) => f.slice(0, -4)).sort()
  for (const model of names) {
    const sql = fs.readFileSync(path.join(models, `${model}.sql`), "utf8")
    await connection.run(`CREATE OR REPLACE TABLE main.${model} AS ${sql}`)
    if (withTests) for (const t of tests) await connection.runAndReadAll(testQuery(t, `main.${model}`))
  }
  connection.closeSync()
  instance.closeSync()
}

const fresh = (dir: string) => {
  fs.rmSync(path.join(dir, ".pcli"), { recursive: true, force: true })
  fs.rmSync(path.join(dir, "models", ".pcli-state.sqlite"), { force: true })
  fs.rmSync(path.join(dir, "floor.duckdb"), { force: true })
  fs.rmSync(path.join(dir, "floor.duckdb.wal"), { force: true })
}

const main = () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-bench-run-"))
  const runs = Math.max(1, Number(process.env["BENCH_RUNS"] ?? "5"))
  const bin = path.resolve("dist/pcli.cjs")
  const self = process.argv[1]!
  const rows: Array<Array<string>> = []
  const verdicts: Array<string> = []
  try {
    for (const mix of mixesToRun()) for (const n of (process.env["BENCH_SIZES"] ?? "100,1000").split(",").filter((s) => s !== "").map(Number)) {
      const dir = path.join(root, `${mix}-p${n}`)
      console.error(`  [${mix}, n=${n}] ${generate(dir, n, mix)}`)
      const samples = { pcli: [] as Array<Measure>, a: [] as Array<Measure>, b: [] as Array<Measure> }
      for (let k = 0; k < runs; k++) {
        // Interleaved, so a burst of load on the shared machine hits every case alike.
        fresh(dir)
        samples.a.push(measure(root, [self, "--floor", dir, "a"], dir))
        fresh(dir)
        samples.b.push(measure(root, [self, "--floor", dir, "b"], dir))
        fresh(dir)
        samples.pcli.push(measure(root, [bin, "run", "--output", "json"], dir))
        console.error(
          `  [${mix}, n=${n}] floor a ${samples.a[k]!.wall.toFixed(0)} ms wall / ${samples.a[k]!.cpu.toFixed(0)} ms cpu; ` +
            `floor b ${samples.b[k]!.wall.toFixed(0)} / ${samples.b[k]!.cpu.toFixed(0)}; pcli ${samples.pcli[k]!.wall.toFixed(0)} / ${samples.pcli[k]!.cpu.toFixed(0)}, peak RSS ${samples.pcli[k]!.rss.toFixed(0)} MB`
        )
      }
      const m = (xs: ReadonlyArray<Measure>, key: keyof Measure) => median(xs.map((x) => x[key]))
      const [pw, pc, aw, ac, bw, bc] = [m(samples.pcli, "wall"), m(samples.pcli, "cpu"), m(samples.a, "wall"), m(samples.a, "cpu"), m(samples.b, "wall"), m(samples.b, "cpu")]
      rows.push([
        mix,
        String(n),
        `${aw.toFixed(0)} / ${ac.toFixed(0)}`,
        `${bw.toFixed(0)} / ${bc.toFixed(0)}`,
        `${pw.toFixed(0)} / ${pc.toFixed(0)}`,
        `${(pw / aw).toFixed(2)}x / ${(pc / ac).toFixed(2)}x`,
        `${(pw / bw).toFixed(2)}x / ${(pc / bc).toFixed(2)}x`,
        `${spread(samples.pcli.map((x) => x.cpu))} / ${spread(samples.b.map((x) => x.cpu))}`,
        Math.max(...samples.pcli.map((s) => s.rss)).toFixed(0),
        Math.max(...samples.b.map((s) => s.rss)).toFixed(0)
      ])
      if (n === 1000) {
        const ok = (r: number, t: number) => (r <= t ? `ok (<= ${t})` : `MISSED (> ${t})`)
        verdicts.push(`${mix} mix, 1,000 models vs floor (b): wall ${(pw / bw).toFixed(2)}x ${ok(pw / bw, 1.1)}, cpu ${(pc / bc).toFixed(2)}x ${ok(pc / bc, 1.1)}`)
        verdicts.push(`${mix} mix, 1,000 models vs floor (a): wall ${(pw / aw).toFixed(2)}x ${ok(pw / aw, 1.4)}, cpu ${(pc / ac).toFixed(2)}x ${ok(pc / ac, 1.4)}`)
      }
    }
    const rssSize = Number(process.env["BENCH_RSS_SIZE"] ?? "2000")
    for (const mix of rssSize > 0 ? mixesToRun() : []) {
      const dir = path.join(root, `${mix}-p${rssSize}`)
      generate(dir, rssSize, mix)
      fresh(dir)
      const bigFloor = measure(root, [self, "--floor", dir, "b"], dir)
      // One run's peak RSS varies by 10-30 MB from the next (DuckDB's native memory), so it is a median.
      const bigRuns = Array.from({ length: Math.max(1, Number(process.env["BENCH_RSS_RUNS"] ?? "5")) }, () => {
        fresh(dir)
        return measure(root, [bin, "run", "--output", "json"], dir)
      })
      const rss = median(bigRuns.map((r) => r.rss))
      verdicts.push(
        `${mix} mix, peak RSS of pcli run at ${rssSize} models, median of ${bigRuns.length}: ${rss.toFixed(0)} MB ${rss <= 300 ? "ok (<= 300)" : "MISSED (> 300)"} ` +
          `(runs ${bigRuns.map((r) => r.rss.toFixed(0)).join(", ")} MB; wall ${median(bigRuns.map((r) => r.wall)).toFixed(0)} ms; floor b in the same run: ${bigFloor.rss.toFixed(0)} MB)`
      )
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
  console.log(`run overhead, medians of ${runs} runs; each cell wall ms / cpu ms (user+sys, whole process).`)
  console.log("floor a = model SQL alone, floor b = model SQL + the same tests as separate queries; both topological, one connection.")
  console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`)
  printTable(["mix", "models", "floor a", "floor b", "pcli run", "pcli / a", "pcli / b", "cpu spread pcli / b", "pcli peak RSS MB", "floor b peak RSS MB"], rows)
  for (const v of verdicts) console.log(v)
}

if (process.argv[2] === "--generate") generate(process.argv[3]!, Number(process.argv[4]), (process.argv[5] ?? "realistic") as Mix) // for profiling by hand
else if (process.argv[2] === "--floor") void floor(process.argv[3]!, process.argv[4] === "b")
else main()
