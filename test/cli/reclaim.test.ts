/**
 * Acceptance of the reclamation table and the restore refusals of the Errors table, through the
 * binary on real DuckDB and real files. Conditions the CLI cannot reach on its own (a partitioned
 * recipe, encoder drift, a hand-edited path) are made by editing the state store with sqlite3,
 * exactly as a damaged or foreign store would present them.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { copyProject, makeProject, runCli } from "../support/cli"

const ca = (name: string) =>
  `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n`
const plain = (name: string) => `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n`

/** Each case drives the binary many times; on a shared 2-core machine that is minutes, not seconds. */
const SLOW = 300_000
const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const json = async (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env: { ...human, ...env } })
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}
const store = (cwd: string) => join(cwd, "models", ".pcli-state.sqlite")
const sqlite = (cwd: string, text: string) => execFileSync("sqlite3", [store(cwd), text], { encoding: "utf8" }).trim()
const approveApply = async (cwd: string, planId: string, env: Record<string, string> = {}) => {
  expect((await json(["review", planId, "--approve"], cwd)).code).toBe(0)
  return json(["apply", planId], cwd, env)
}
/** Restore plan for `target`, approved and applied; returns the apply. */
const restore = async (cwd: string, target: string) => {
  const plan = await json(["restore", target], cwd)
  expect(plan.code, plan.stderr).toBe(0)
  return approveApply(cwd, plan.out.plan_id)
}

/** Runs the project, then evicts every derivable artifact; returns model → hash of what was evicted. */
const evictAll = async (cwd: string) => {
  expect((await json(["run"], cwd)).code).toBe(0)
  const plan = await json(["gc", "--derivable", "--min-age-days", "0"], cwd)
  expect(plan.code, plan.stderr).toBe(0)
  const applied = await approveApply(cwd, plan.out.plan_id)
  expect(applied.code, applied.stderr).toBe(0)
  return { plan: plan.out.plan_id as string, hashes: new Map<string, string>(applied.out.evicted.map((e: { model_name: string; blake3_hash: string }) => [e.model_name, e.blake3_hash])) }
}

// Built once, copied by the restore-target and store-version cases: `amb` and `n` (content-addressed)
// and `p` (plain), run and every derivable artifact evicted by `sharedEviction.plan`.
let shared = ""
let sharedEviction: Awaited<ReturnType<typeof evictAll>>
beforeAll(async () => {
  shared = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    "models/amb.sql": "SELECT 1 AS id",
    "models/amb.toml": ca("amb"),
    "models/n.sql": "SELECT 5 AS id",
    "models/n.toml": ca("n"),
    "models/p.sql": "SELECT 1 AS id",
    "models/p.toml": plain("p")
  })
  sharedEviction = await evictAll(shared)
}, SLOW)

describe("artifact reclamation: restore refusals (Errors table)", () => {
  const names = ["parted", "drift", "outside", "badir", "unbound", "corrupt", "race"]
  let cwd = ""
  let hashes = new Map<string, string>()
  const file = (m: string) => join(cwd, "artifacts", `${hashes.get(m)}.parquet`)
  const tombstoneOpen = (m: string) => sqlite(cwd, `SELECT count(*) FROM tombstones WHERE model_name = '${m}' AND restored_at IS NULL`) === "1"
  const live = (m: string) => sqlite(cwd, `SELECT count(*) FROM artifacts WHERE model_name = '${m}'`)

  // One project, everything evicted once; each case then damages one model's record.
  beforeAll(async () => {
    const models: Record<string, string> = {
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      "models/noisy.sql": "SELECT random() AS r",
      "models/noisy.toml": ca("noisy"),
      "models/child.sql": "SELECT count(*) AS n FROM s.noisy",
      "models/child.toml": ca("child")
    }
    names.forEach((n, i) => {
      models[`models/${n}.sql`] = `SELECT ${i + 10} AS id, '${n}' AS v`
      models[`models/${n}.toml`] = ca(n)
    })
    cwd = makeProject(models)
    hashes = (await evictAll(cwd)).hashes
    for (const m of ["child", "parted", "drift", "outside", "badir", "unbound", "race"]) rmSync(file(m))
  }, SLOW)

  it("the volatile model was never derivable; everything else was evicted", () => {
    expect([...hashes.keys()].sort()).toEqual(["child", ...names].sort())
    expect(live("noisy")).toBe("1")
  })

  it("a recipe with a recorded upstream is refused outright", async () => {
    const child = await restore(cwd, "child")
    expect(child.code, child.stderr).toBe(0)
    expect(child.out.refused).toMatchObject([{ model_name: "child", condition: "restorable_recipe" }])
    expect(child.out.refused[0].reason).toMatch(/1 recorded upstream/)
    expect(existsSync(file("child"))).toBe(false)
  }, SLOW)

  it("a partitioned recipe is refused outright", async () => {
    sqlite(cwd, `UPDATE provenance SET model_canonical_json = replace(model_canonical_json, '"partition_columns":[]', '"partition_columns":["id"]') WHERE model_name = 'parted'`)
    expect((await restore(cwd, "parted")).out.refused).toMatchObject([{ condition: "restorable_recipe", reason: expect.stringMatching(/partitioned/) }])
    expect(existsSync(file("parted"))).toBe(false)
  }, SLOW)

  it("a recorded SQL that no longer reproduces the tombstoned hash writes nothing", async () => {
    // As after an encoder change: the recorded recipe now yields other bytes.
    sqlite(cwd, `UPDATE provenance SET model_canonical_json = replace(model_canonical_json, 'SELECT 11 AS id', 'SELECT 111 AS id') WHERE model_name = 'drift'`)
    const drift = await restore(cwd, "drift")
    expect(drift.out.refused).toMatchObject([{ condition: "hash_reproduces", reason: expect.stringMatching(/REBUILD MISMATCH.*nothing was written/) }])
    expect(existsSync(file("drift"))).toBe(false)
  }, SLOW)

  it("a path outside the storage prefix is refused", async () => {
    const outside = `../escaped/${hashes.get("outside")}.parquet`
    sqlite(cwd, `UPDATE tombstones SET file_path = '${outside}' WHERE model_name = 'outside'`)
    sqlite(cwd, `UPDATE provenance SET output_path_json = '["${outside}"]' WHERE model_name = 'outside'`)
    expect((await restore(cwd, "outside")).out.refused).toMatchObject([{ condition: "storage", reason: expect.stringMatching(/not inside the storage prefix/) }])
    expect(existsSync(join(cwd, "..", "escaped"))).toBe(false)
  }, SLOW)

  it("a canonical IR that will not deserialize, and a missing provenance binding, are refused", async () => {
    sqlite(cwd, `UPDATE provenance SET model_canonical_json = '{"sql": 42' WHERE model_name = 'badir'`)
    expect((await restore(cwd, "badir")).out.refused).toMatchObject([{ condition: "recipe_deserializes" }])
    sqlite(cwd, `UPDATE provenance SET output_blake3_json = '[]' WHERE model_name = 'unbound'`)
    expect((await restore(cwd, "unbound")).out.refused).toMatchObject([{ condition: "provenance_binding" }])
  }, SLOW)

  it("a corrupted (truncated) file at the tombstoned path is never overwritten", async () => {
    const original = readFileSync(file("corrupt"))
    writeFileSync(file("corrupt"), original.subarray(0, 40))
    expect((await restore(cwd, "corrupt")).out.refused).toMatchObject([{ condition: "write", reason: expect.stringMatching(/never overwrites/) }])
    expect(readFileSync(file("corrupt")).equals(original.subarray(0, 40))).toBe(true)
  }, SLOW)

  it("a lost race on reinstatement (the location re-materialized with other bytes) is refused", async () => {
    const racePlan = await json(["restore", "race"], cwd)
    expect((await json(["review", racePlan.out.plan_id, "--approve"], cwd)).code).toBe(0)
    sqlite(cwd, `INSERT INTO artifacts (run_id, model_name, file_path, blake3_hash, size_bytes, commit_version, rows, written_at)
      SELECT run_id, model_name, file_path, '${"f".repeat(64)}', size_bytes, commit_version, rows, written_at FROM tombstones WHERE model_name = 'race'`)
    const race = await json(["apply", racePlan.out.plan_id], cwd)
    expect(race.out.refused).toMatchObject([{ condition: "reinstate", reason: expect.stringMatching(/lost the race/) }])
  }, SLOW)

  it("every refused artifact stays evicted", () => {
    for (const m of ["child", "parted", "drift", "outside", "badir", "unbound", "corrupt", "race"]) expect(tombstoneOpen(m), m).toBe(true)
    for (const m of ["child", "parted", "drift", "outside", "badir", "unbound", "corrupt"]) expect(live(m), m).toBe("0")
  })
})

describe("artifact reclamation: restore target", () => {
  it("an ambiguous target is refused with every candidate listed and no plan written", async () => {
    const cwd = copyProject(shared)
    const first = sharedEviction.hashes.get("amb")!
    writeFileSync(join(cwd, "models/amb.sql"), "SELECT 2 AS id")
    const second = (await evictAll(cwd)).hashes.get("amb")!
    const plansBefore = sqlite(cwd, "SELECT count(*) FROM ledger")
    const r = await json(["restore", "amb"], cwd)
    expect(r.code).toBe(1)
    expect(r.out.error.code).toBe("restore-target-ambiguous")
    expect(r.out.error.message).toMatch(/2 evicted artifacts match/)
    expect(r.out.error.message).toContain(first.slice(0, 12))
    expect(r.out.error.message).toContain(second.slice(0, 12))
    expect(sqlite(cwd, "SELECT count(*) FROM ledger")).toBe(plansBefore)
    // A hash prefix picks one.
    expect((await json(["restore", first.slice(0, 8)], cwd)).code).toBe(0)
  }, SLOW)
})

describe("artifact reclamation: crash safety and store version", () => {
  it("SIGKILL inside the eviction transaction leaves the live row and no tombstone; SIGKILL inside reinstatement leaves the tombstone open and no row", async () => {
    const cwd = makeProject({ "pcli.toml": `[adapter.local]\ntype = "embedded"\n`, "models/k.sql": "SELECT 7 AS id", "models/k.toml": ca("k") })
    expect((await json(["run"], cwd)).code).toBe(0)
    const plan = await json(["gc", "--derivable", "--min-age-days", "0"], cwd)
    const killed = await approveApply(cwd, plan.out.plan_id, { PCLI_TEST_CRASH_AFTER: "gc-tombstone-written" })
    expect(killed.code).not.toBe(0)
    expect(killed.out).toBeUndefined()
    expect(sqlite(cwd, "SELECT (SELECT count(*) FROM artifacts) || '/' || (SELECT count(*) FROM tombstones)")).toBe("1/0")
    // decisions.md 34: the killed apply still holds its claim; a human's new approval retakes it.
    expect((await json(["apply", plan.out.plan_id], cwd)).out.error.code).toBe("plan-already-applied")
    const evicted = await approveApply(cwd, plan.out.plan_id)
    expect(evicted.out.evicted_count).toBe(1)
    expect(sqlite(cwd, "SELECT (SELECT count(*) FROM artifacts) || '/' || (SELECT count(*) FROM tombstones)")).toBe("0/1")

    const hash = evicted.out.evicted[0].blake3_hash as string
    rmSync(join(cwd, "artifacts", `${hash}.parquet`))
    const rplan = await json(["restore", "k"], cwd)
    const dead = await approveApply(cwd, rplan.out.plan_id, { PCLI_TEST_CRASH_AFTER: "restore-row-reinstated" })
    expect(dead.code).not.toBe(0)
    expect(sqlite(cwd, "SELECT (SELECT count(*) FROM artifacts) || '/' || (SELECT count(*) FROM tombstones WHERE restored_at IS NULL)")).toBe("0/1")
    // The verified bytes were left in place; re-applying completes without writing them again.
    const done = await approveApply(cwd, rplan.out.plan_id)
    expect(done.out.restored).toMatchObject([{ blake3_hash: hash, bytes_written: false }])
    expect(sqlite(cwd, "SELECT (SELECT count(*) FROM artifacts) || '/' || (SELECT count(*) FROM tombstones WHERE restored_at IS NULL)")).toBe("1/0")
  }, SLOW)

  it("a newer state store is refused by gc, restore, backfill and by the apply of each of their plans", async () => {
    const cwd = copyProject(shared)
    const gcPlan = sharedEviction.plan
    const rplan = (await json(["restore", "n"], cwd)).out.plan_id as string
    const bplan = (await json(["backfill", "--model", "p"], cwd)).out.plan_id as string
    for (const id of [rplan, bplan]) expect((await json(["review", id, "--approve"], cwd)).code).toBe(0)
    const before = sqlite(cwd, "SELECT (SELECT count(*) FROM artifacts) || '/' || (SELECT count(*) FROM tombstones) || '/' || (SELECT count(*) FROM runs)")
    sqlite(cwd, "UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    for (const args of [
      ["gc", "--derivable", "--dry-run"],
      ["gc", "--derivable", "--min-age-days", "0"],
      ["restore", "n"],
      ["backfill", "--model", "p"],
      ["apply", gcPlan],
      ["apply", rplan],
      ["apply", bplan]
    ]) {
      const r = await runCli(args, { cwd, env: human })
      expect(r.code, args.join(" ")).toBe(1)
      expect(r.stderr, args.join(" ")).toMatch(/^error\[state-store-newer\]/)
    }
    expect(sqlite(cwd, "SELECT (SELECT count(*) FROM artifacts) || '/' || (SELECT count(*) FROM tombstones) || '/' || (SELECT count(*) FROM runs)")).toBe(before)
  }, SLOW)
})
