import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { copyProject, makeProject, runCli } from "../support/cli"

const ca = (name: string) =>
  `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n`

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const json = async (args: ReadonlyArray<string>, cwd: string) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env: human })
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}
const approveApply = async (cwd: string, planId: string) => {
  expect((await json(["review", planId, "--approve"], cwd)).code).toBe(0)
  return json(["apply", planId], cwd)
}

/** A run project of one content-addressed model, `stable`. */
const ranProject = async () => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    "models/stable.sql": "SELECT 1 AS id, 'x' AS v",
    "models/stable.toml": ca("stable")
  })
  expect((await json(["run"], cwd)).code).toBe(0)
  return cwd
}

/** Evicts the artifact of `stable` in the run project `cwd`; returns its hash. */
const evict = async (cwd: string) => {
  const plan = await json(["gc", "--derivable", "--min-age-days", "0"], cwd)
  const hash = plan.out.evictions[0].blake3_hash as string
  expect((await approveApply(cwd, plan.out.plan_id)).out.evicted_count).toBe(1)
  return hash
}

describe("pcli restore through the binary", () => {
  // Built once, copied per test: the run project (`ran`), and a copy of it with the artifact evicted (`evictedDir`).
  let ran = ""
  let evictedDir = ""
  let evictedHash = ""
  beforeAll(async () => {
    ran = await ranProject()
    evictedDir = copyProject(ran)
    evictedHash = await evict(evictedDir)
  }, 300_000)
  /** A project with one evicted artifact of `stable`; its hash and file. */
  const evicted = () => {
    const cwd = copyProject(evictedDir)
    return { cwd, hash: evictedHash, file: join(cwd, "artifacts", `${evictedHash}.parquet`) }
  }

  it("a deleted artifact is restored byte-identical from the recorded SQL even after the working tree changed; re-restore is already-restored; live and unknown are distinct", async () => {
    const { cwd, hash, file } = evicted()
    const original = readFileSync(file)
    rmSync(file)
    writeFileSync(join(cwd, "models/stable.sql"), "SELECT 2 AS id, 'edited' AS v")
    expect((await json(["restore", "deadbeef"], cwd)).out.error.code).toBe("restore-target-unknown")
    // A hash prefix under 8 hex characters is named as such, not only "no match".
    const short = await runCli(["restore", hash.slice(0, 4)], { cwd, env: human })
    expect(short.code).toBe(1)
    expect(short.stderr).toContain(`restore ${hash.slice(0, 4)}: a content-hash prefix needs at least 8 hex characters (got 4)`)
    const plan = await json(["restore", hash.slice(0, 10)], cwd)
    expect(plan.code, plan.stderr).toBe(0)
    expect(plan.out).toMatchObject({ command: "restore", restoration_count: 1, review_required: true })
    expect(existsSync(file)).toBe(false) // the plan writes no bytes
    expect((await json(["apply", plan.out.plan_id], cwd)).out.error.code).toBe("marker-missing")
    const applied = await approveApply(cwd, plan.out.plan_id)
    expect(applied.code, applied.stderr).toBe(0)
    expect(applied.out).toMatchObject({ kind: "restore", restored_count: 1, restored: [{ blake3_hash: hash, hash_verified: true, bytes_written: true }] })
    expect(readFileSync(file).equals(original)).toBe(true)
    expect((await json(["restore", "stable"], cwd)).out.error.code).toBe("restore-already-restored")
    // decisions.md 34: a plan applies once.
    const again = await json(["apply", plan.out.plan_id], cwd)
    expect(again.out.error.code).toBe("plan-already-applied")
    // The reinstated row is live again.
    expect((await json(["gc", "--derivable", "--dry-run", "--min-age-days", "0"], cwd)).out.artifact_count).toBe(1)
  }, 300_000)

  it("a foreign file at the tombstoned path is never overwritten; identical bytes in place count as verified with no write", async () => {
    const { cwd, hash, file } = evicted()
    const original = readFileSync(file)
    writeFileSync(file, "not parquet")
    const plan = await json(["restore", "stable"], cwd)
    const refused = await approveApply(cwd, plan.out.plan_id)
    expect(refused.code, refused.stderr).toBe(0)
    expect(refused.out.refused).toMatchObject([{ blake3_hash: hash, condition: "write" }])
    expect(readFileSync(file, "utf8")).toBe("not parquet")
    writeFileSync(file, original)
    // An apply that refused an item failed: its approval is used up, so a retry is approved again.
    expect((await json(["apply", plan.out.plan_id], cwd)).out.error.code).toBe("plan-already-applied")
    const verified = await approveApply(cwd, plan.out.plan_id)
    expect(verified.out.restored).toMatchObject([{ blake3_hash: hash, bytes_written: false }])
  }, 300_000)

  it("a live artifact is not restorable", async () => {
    const cwd = copyProject(ran)
    const live = await json(["restore", "stable"], cwd)
    expect(live.code).toBe(1)
    expect(live.out.error.code).toBe("restore-target-live")
  })
})
