import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeProject, runCli } from "../support/cli"

/** A preload that reports, at exit, whether the process loaded DuckDB's module at all. */
const hookDir = makeProject({
  "duckdb-probe.cjs":
    `process.on("exit", () => process.stderr.write("duckdb-loaded=" + Object.keys(require.cache).some((k) => k.includes("@duckdb")) + "\\n"))\n`
})
const probe = { NODE_OPTIONS: `--require ${join(hookDir, "duckdb-probe.cjs")}` }
/** A preload that says so when it runs in a worker thread (NODE_OPTIONS reaches workers too). */
const workerProbe = `if (!require("node:worker_threads").isMainThread) require("node:fs").writeSync(2, "worker-thread-started\\n")\n`

const model = (name: string, sql: string, extra = "") => ({
  [`models/${name}.sql`]: sql,
  [`models/${name}.toml`]: `name = "${name}"\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${name}"\n${extra}`
})

const config = `[adapter.local]\ntype = "embedded"\n\n[policy]\nversion = 1\ndefault_agent_effect = "require_review"\n`

/** `c` uses SQL the fast reader leaves to DuckDB (`IS DISTINCT FROM`), so loading DuckDB means "c was parsed". */
const project = () =>
  makeProject({
    "pcli.toml": config,
    ...model("a", "SELECT 1 AS id"),
    ...model("b", "SELECT id FROM s.a"),
    ...model("c", "SELECT id FROM s.b WHERE id IS DISTINCT FROM 0", `\n[tags]\nlayer = "mart"\n`)
  })

const compile = async (cwd: string) => {
  const r = await runCli(["compile", "--output", "json"], { cwd, env: probe })
  expect(r.code, r.stderr).toBe(0)
  return { out: JSON.parse(r.stdout) as { execution_order: Array<string> }, duckdb: /duckdb-loaded=true/.test(r.stderr) }
}

/** The compile index beside the shards (`pcli compile` reads it instead of them when it is intact). */
const indexFile = (cwd: string) => {
  const dir = join(cwd, ".pcli", "compile-cache")
  const found = readdirSync(dir).filter((f) => f.endsWith(".index"))
  expect(found).toHaveLength(1)
  return join(dir, found[0]!)
}

/** A compile that takes the whole path through the shards: the compile index removed first. */
const compileFromShards = async (cwd: string) => {
  rmSync(indexFile(cwd))
  return compile(cwd)
}

/** The cache's shard files (one per shard that holds a model). */
const cacheFiles = (cwd: string) => {
  const dir = join(cwd, ".pcli", "compile-cache")
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(dir, f))
}

/** The cache's content, shard by shard, without its stat index (stats are kept only once a file is a second old). */
const cacheContent = (cwd: string) =>
  cacheFiles(cwd).map((file) => {
    const text = readFileSync(file, "utf8")
    const body = JSON.parse(text.slice(text.indexOf("\n") + 1)) as Record<string, unknown>
    delete body["files"]
    return [file, body]
  })

/** The shard file whose text contains `needle`. */
const cacheFileWith = (cwd: string, needle: string) => {
  const found = cacheFiles(cwd).filter((file) => readFileSync(file, "utf8").includes(needle))
  expect(found).toHaveLength(1)
  return found[0]!
}

describe("compile cache (binary)", () => {
  it("a warm compile and policy check reuse the cache and never load DuckDB; an edit re-parses", async () => {
    const cwd = project()
    const cold = await compile(cwd)
    expect(cold.duckdb).toBe(true)
    expect(cold.out.execution_order).toEqual(["a", "b", "c"])
    const warm = await compile(cwd)
    expect(warm.duckdb).toBe(false)
    expect(warm.out).toEqual(cold.out)
    const check = await runCli(["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "c", "--output", "json"], {
      cwd,
      env: probe
    })
    expect(check.code, check.stderr).toBe(0)
    expect(JSON.parse(check.stdout).model_attributes.downstreams).toBe(0)
    expect(check.stderr).toContain("duckdb-loaded=false")
    // Editing one model's SQL re-parses it (DuckDB loads for this SQL) and the DAG follows the edit.
    writeFileSync(join(cwd, "models", "c.sql"), "SELECT id + 1 AS id FROM s.a WHERE id IS DISTINCT FROM 1")
    const edited = await compile(cwd)
    expect(edited.duckdb).toBe(true)
    const bAfter = await runCli(["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "b", "--output", "json"], {
      cwd,
      env: probe
    })
    expect(JSON.parse(bAfter.stdout).model_attributes.downstreams).toBe(0)
    expect(bAfter.stderr).toContain("duckdb-loaded=false")
    // A sidecar-only edit is decoded again without DuckDB.
    writeFileSync(join(cwd, "models", "c.toml"), `name = "c"\n[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "c"\n[tags]\nlayer = "x"\n`)
    const sidecarEdit = await runCli(["policy", "check", "--principal", "agent", "--capability", "apply", "--model", "c", "--output", "json"], {
      cwd,
      env: probe
    })
    expect(JSON.parse(sidecarEdit.stdout).model_attributes.layer).toBe("x")
    expect(sidecarEdit.stderr).toContain("duckdb-loaded=false")
  })

  it("a corrupt cache is ignored and rebuilt, never trusted", async () => {
    const cwd = project()
    const cold = await compile(cwd)
    const file = cacheFileWith(cwd, `[{"schema":"s","table":"a"}]`)
    const text = readFileSync(file, "utf8")
    const content = cacheContent(cwd)
    // A body that still parses but says b reads nothing: trusting it would change the DAG.
    writeFileSync(file, text.replace(/\[\{"schema":"s","table":"a"\}\]/, "[]"))
    const afterTamper = await compileFromShards(cwd)
    expect(afterTamper.out).toEqual(cold.out)
    expect(cacheContent(cwd)).toEqual(content)
    // Torn (truncated) and garbage shards are rebuilt the same way (c's shard: only DuckDB reads c).
    const cFile = cacheFileWith(cwd, "IS DISTINCT FROM")
    const cText = readFileSync(cFile, "utf8")
    writeFileSync(cFile, cText.replace("IS DISTINCT FROM 0", "IS DISTINCT FROM 1"))
    const afterEdit = await compileFromShards(cwd)
    expect(afterEdit.duckdb).toBe(true)
    expect(afterEdit.out).toEqual(cold.out)
    expect(cacheContent(cwd)).toEqual(content)
    for (const broken of [cText.slice(0, cText.length / 2), "not json at all", ""]) {
      writeFileSync(cFile, broken)
      const rebuilt = await compileFromShards(cwd)
      expect(rebuilt.duckdb).toBe(true)
      expect(rebuilt.out).toEqual(cold.out)
      expect(cacheContent(cwd)).toEqual(content)
      expect((await compile(cwd)).duckdb).toBe(false)
    }
  })

  it("a foreign cache (another build, another models directory) is ignored and rewritten", async () => {
    const cwd = project()
    const cold = await compile(cwd)
    // The shard holding c's SQL (only DuckDB reads it, so a rebuilt shard loads DuckDB).
    const file = cacheFileWith(cwd, "IS DISTINCT FROM")
    const text = readFileSync(file, "utf8")
    const newline = text.indexOf("\n")
    const header = JSON.parse(text.slice(0, newline)) as Record<string, string | number>
    const content = cacheContent(cwd)
    for (const foreign of [{ build: "0.0.0+other" }, { modelsDir: "/elsewhere/models" }, { format: "pcli-compile-cache/0" }, { shard: 99 }]) {
      writeFileSync(file, `${JSON.stringify({ ...header, ...foreign })}\n${text.slice(newline + 1)}`)
      const rebuilt = await compileFromShards(cwd)
      expect(rebuilt.duckdb).toBe(true)
      expect(rebuilt.out).toEqual(cold.out)
      expect(cacheContent(cwd)).toEqual(content)
    }
  })

  it("a corrupt or foreign compile index is ignored and rebuilt, never trusted", async () => {
    const cwd = project()
    const cold = await compile(cwd)
    const file = indexFile(cwd)
    const original = readFileSync(file)
    const newline = original.indexOf(10)
    const header = JSON.parse(original.subarray(0, newline).toString("utf8")) as Record<string, unknown>
    const body = original.subarray(newline + 1).toString("latin1")
    // The stored text forged to order z first (same length): printing it would be trusting the index.
    const at = body.indexOf('"execution_order": [')
    const forged = `${body.slice(0, at)}${body.slice(at).replace('"a"', '"z"')}`
    expect(forged).not.toEqual(body)
    const digest = createHash("sha1").update(Buffer.from(forged, "latin1")).digest("base64url")
    const write = (h: Record<string, unknown>, b: string) => writeFileSync(file, Buffer.from(`${JSON.stringify(h)}\n${b}`, "latin1"))
    const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
      [header, forged], // the digest no longer matches: corrupt
      [{ ...header, digest, build: "0.0.0+other" }, forged],
      [{ ...header, digest, modelsDir: "/elsewhere/models" }, forged],
      [{ ...header, digest, format: "pcli-compile-index/0" }, forged],
      [header, body.slice(0, body.length / 2)], // torn
      [{ ...header, sections: [1, 2, 3, 4] }, body]
    ]
    for (const [h, b] of cases) {
      write(h, b)
      const rebuilt = await compile(cwd)
      expect(rebuilt.out).toEqual(cold.out)
      expect(readFileSync(file).subarray(newline + 1).toString("latin1").endsWith(body.slice(at))).toBe(true)
    }
    for (const garbage of ["not an index", ""]) {
      writeFileSync(file, garbage)
      expect((await compile(cwd)).out).toEqual(cold.out)
    }
    // The control: the same forgery under this build's header with its digest is read, so the refusals above are the checks' doing.
    write({ ...header, digest }, forged)
    expect((await compile(cwd)).out.execution_order[0]).toBe("z")
  })

  it("SQL the fast reader recognises never loads DuckDB, cold or warm, and compiles as DuckDB's parser does", async () => {
    const files = {
      "pcli.toml": config,
      ...model("a", "SELECT range AS id, 'é☃' || range AS label FROM range(10)"),
      ...model("b", "WITH base AS (SELECT id, label FROM s.a) SELECT b.id, upper(b.label) AS label FROM base b JOIN s.a USING (id)"),
      ...model("c", "SELECT id, count(*) OVER (PARTITION BY id % 2) AS n FROM s.b WHERE id IN (SELECT id FROM s.a) -- done")
    }
    const cwd = makeProject(files)
    const cold = await compile(cwd)
    expect(cold.duckdb).toBe(false)
    expect(cold.out.execution_order).toEqual(["a", "b", "c"])
    expect((await compile(cwd)).duckdb).toBe(false)
    // The same project with a model DuckDB must read compiles to the same DAG.
    writeFileSync(join(cwd, "models", "c.sql"), `${files["models/c.sql" as keyof typeof files]}\n  AND id IS DISTINCT FROM -1`)
    const mixed = await compile(cwd)
    expect(mixed.duckdb).toBe(true)
    expect(mixed.out).toEqual(cold.out)
  })

  it("an edit the stat index cannot see by mtime (same size, mtime restored) is still read", async () => {
    const cwd = project()
    await compile(cwd)
    const sql = join(cwd, "models", "b.sql")
    const before = statSync(sql)
    // Old enough that the stat index trusts the file, then rewritten with the same size and mtime.
    utimesSync(sql, before.atime, new Date(Date.now() - 5000))
    await new Promise((resolve) => setTimeout(resolve, 1100)) // the ctime too must be a second old
    await compile(cwd)
    // Nothing changed since: the compile index answers alone (no shard is read, so none is rewritten).
    const warm = await compile(cwd)
    for (const file of cacheFiles(cwd)) rmSync(file)
    expect((await compile(cwd)).out).toEqual(warm.out)
    expect(readdirSync(join(cwd, ".pcli", "compile-cache")).filter((f) => f.endsWith(".json"))).toEqual([])
    const aged = statSync(sql)
    writeFileSync(sql, "SELECT id FROM s.c".padEnd(before.size, " "))
    utimesSync(sql, aged.atime, aged.mtime)
    const r = await runCli(["compile", "--output", "json"], { cwd, env: probe })
    // b now reads c, which reads b: the edit was seen (ctime changed), not served from the cache.
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain("cycle")
  })

  it("a cold compile of a large project reads ahead on a worker thread and prints what a compile from the shards prints; a smaller one does not", async () => {
    // 2,800 models, 6,160 files: past the read-ahead threshold (6,000). Chained reads, a layer tag, every fifth with a contract.
    const files: Record<string, string> = { "pcli.toml": config, "worker-probe.cjs": workerProbe }
    for (let i = 0; i < 2800; i++) {
      const name = `m${String(i).padStart(4, "0")}`
      const upstream = i === 0 ? "" : ` FROM s.m${String(Math.floor(i / 2)).padStart(4, "0")}`
      Object.assign(files, model(name, `SELECT 1 AS id${upstream}`, `\n[tags]\nlayer = "l${i % 3}"\n`))
      if (i % 5 === 0) files[`models/${name}.contract.toml`] = `[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n`
    }
    const cwd = makeProject(files)
    const env = { NODE_OPTIONS: `--require ${join(cwd, "worker-probe.cjs")}` }
    const cold = await runCli(["compile", "--output", "json"], { cwd, env })
    expect(cold.code, cold.stderr).toBe(0)
    expect(cold.stderr).toContain("worker-thread-started")
    // The shards (written by the worker while the compile rendered): every one there, intact and of this build.
    const shards = cacheFiles(cwd)
    expect(shards).toHaveLength(64)
    const builds = new Set<string>()
    for (const file of shards) {
      const bytes = readFileSync(file)
      const newline = bytes.indexOf(10)
      const header = JSON.parse(bytes.subarray(0, newline).toString("latin1")) as { digest: string; build: string }
      expect(header.digest).toBe(createHash("sha1").update(bytes.subarray(newline + 1)).digest("base64url"))
      builds.add(header.build)
    }
    expect(builds.size).toBe(1)
    const fromShards = await compileFromShards(cwd)
    expect(JSON.parse(cold.stdout)).toEqual(fromShards.out)
    expect(cold.stdout).toBe((await runCli(["compile", "--output", "json"], { cwd })).stdout)
    // A sidecar only the plain decoder reads fails a cold compile as it always did, named by its file.
    writeFileSync(join(cwd, "models", "m0500.toml"), `name = "m0500"\n[target\n`)
    rmSync(join(cwd, ".pcli"), { recursive: true })
    const broken = await runCli(["compile", "--output", "json"], { cwd, env })
    expect(broken.code).toBe(1)
    expect(broken.stderr).toContain("worker-thread-started")
    expect(JSON.parse(broken.stdout).error.message).toContain("m0500.toml")
    // A small project is read on this thread alone.
    const small = project()
    writeFileSync(join(small, "worker-probe.cjs"), workerProbe)
    const few = await runCli(["compile", "--output", "json"], { cwd: small, env: { NODE_OPTIONS: `--require ${join(small, "worker-probe.cjs")}` } })
    expect(few.code, few.stderr).toBe(0)
    expect(few.stderr).not.toContain("worker-thread-started")
  })
})
