import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { planIdOf } from "../../src/services/Plans/ids"
import { copyProject, runCli } from "../support/cli"
import { environmentProject, sidecar } from "../support/environments"

// Decision 37: a promote plan carries its models' policy facts so its apply (and the rollback of it)
// need not compile. Checked here through the binary: what the plan carries, that the apply and the
// rollback compile nothing, and that facts nobody compiled are never approved or applied.

const human = { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice" }
const cli = (dir: string, args: ReadonlyArray<string>) => runCli(args, { cwd: dir, env: { ...human, OWNER: "data" } })
const errorCode = (stderr: string) => /error\[([a-z_-]+)\]/.exec(stderr)?.[1]
const planIdIn = (stdout: string) => /^Plan ([0-9a-f]{64})/m.exec(stdout)?.[1] ?? ""
const planFile = (dir: string, id: string) => join(dir, ".pcli", "plans", `${id}.json`)
const compileCache = (dir: string) => join(dir, ".pcli", "compile-cache")
const views = async (dir: string) => (await cli(dir, ["branch", "diff", "feat", "--output", "json"])).stdout

/** Production run, branch `feat` with `clean` (tagged tier = gold) edited and run. */
const branchRun = async () => {
  const dir = environmentProject("facts")
  writeFileSync(join(dir, "models", "clean.toml"), sidecar("clean", "marts", `[tags]\ntier = "gold"\n`))
  expect((await cli(dir, ["run"])).code).toBe(0)
  expect((await cli(dir, ["branch", "create", "feat"])).code).toBe(0)
  writeFileSync(join(dir, "models", "clean.sql"), "SELECT id, lower(v) AS v FROM staging.raw")
  expect((await cli(dir, ["run", "--branch", "feat"])).code).toBe(0)
  return dir
}

describe("a promote's carried policy facts (decision 37)", () => {
  // The branch run is built once and copied per test; each test's policy is in force from its promote's plan on.
  let ran = ""
  beforeAll(async () => {
    ran = await branchRun()
  }, 300_000)
  /** A copy of the branch run with `policy` appended to pcli.toml, its promote planned. */
  const plannedPromote = async (policy = "") => {
    const dir = copyProject(ran)
    appendFileSync(join(dir, "pcli.toml"), policy)
    const planned = await cli(dir, ["plan", "--promote", "feat"])
    expect(planned.code).toBe(0)
    return { dir, planId: planIdIn(planned.stdout) }
  }

  it("the plan carries each swapped model's facts; its apply and its rollback compile nothing (the compile cache is not written again)", async () => {
    const { dir, planId } = await plannedPromote()
    const plan = JSON.parse(readFileSync(planFile(dir, planId), "utf8"))
    expect(plan.payload.models).toEqual(["clean", "total"])
    expect(plan.payload.facts.clean).toMatchObject({ name: "clean", definition: { sidecar: { tags: { tier: "gold" } } }, contracted: false, downstreams: 1, reachableDownstreams: 1 })
    expect(plan.payload.facts.total).toMatchObject({ name: "total", downstreams: 0, reachableDownstreams: 0 })
    expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)

    rmSync(compileCache(dir), { recursive: true, force: true })
    const promoted = await cli(dir, ["apply", planId, "--output", "json"])
    expect(promoted.code).toBe(0)
    expect(JSON.parse(promoted.stdout)).toMatchObject({ command: "promote_apply", kind: "promote", tables_created: 0 })
    const rolledBack = await cli(dir, ["rollback", "--output", "json"])
    expect(rolledBack.code).toBe(0)
    expect(JSON.parse(rolledBack.stdout)).toMatchObject({ command: "promote_apply", kind: "rollback" })
    expect(existsSync(compileCache(dir)) ? readdirSync(compileCache(dir)) : []).toEqual([])

    // Once the project has changed since the promote was planned, a rollback compiles (its facts would be stale).
    const again = planIdIn((await cli(dir, ["plan", "--promote", "feat"])).stdout)
    expect((await cli(dir, ["review", again, "--approve"])).code).toBe(0)
    expect((await cli(dir, ["apply", again])).code).toBe(0)
    rmSync(compileCache(dir), { recursive: true, force: true })
    writeFileSync(join(dir, "models", "total.sql"), "SELECT count(*) AS n, 1 AS k FROM marts.clean")
    expect((await cli(dir, ["rollback"])).code).toBe(0)
    expect(readdirSync(compileCache(dir)).length).toBeGreaterThan(0)
  })

  it("facts nobody compiled: a plan written by hand is refused at approval (plan-integrity) and never applies; a stored plan edited is plan-integrity; a deny scoped by tag is judged on the carried facts", async () => {
    const policy = `[policy]\nversion = 1\ndefault_agent_effect = "allow"\n[[policy.rules]]\nprincipal = "human"\ncapability = "promote"\neffect = "deny"\nscope = { tags = { tier = "gold" } }\n`
    const { dir, planId } = await plannedPromote(policy)
    const before = await views(dir)
    const stored = JSON.parse(readFileSync(planFile(dir, planId), "utf8"))

    // The same plan with the gold tag left out of its facts, under the id it hashes to: a valid plan file nobody compiled.
    const payload = { ...stored.payload, facts: { ...stored.payload.facts, clean: { ...stored.payload.facts.clean, definition: { sidecar: { tags: {}, classification: {} } } } } }
    const forged = planIdOf("promote", payload)
    writeFileSync(planFile(dir, forged), JSON.stringify({ ...stored, plan_id: forged, payload }, null, 2))
    const approval = await cli(dir, ["review", forged, "--approve"])
    expect([approval.code, errorCode(approval.stderr)]).toEqual([1, "plan-integrity"])
    // Applied anyway, unapproved: refused (the model as last built, tier = gold, is judged too, and no marker names it).
    const unapproved = await cli(dir, ["apply", forged])
    expect([unapproved.code, errorCode(unapproved.stderr)]).toEqual([1, "policy-denied"])

    // The stored plan edited in place: its id no longer matches its contents.
    writeFileSync(planFile(dir, planId), JSON.stringify({ ...stored, payload }, null, 2))
    const edited = await cli(dir, ["apply", planId])
    expect([edited.code, errorCode(edited.stderr)]).toEqual([1, "plan-integrity"])
    writeFileSync(planFile(dir, planId), JSON.stringify(stored, null, 2))

    // The genuine plan approves; the deny on tier = gold, read from its carried facts, wins over the marker.
    expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)
    const denied = await cli(dir, ["apply", planId])
    expect([denied.code, errorCode(denied.stderr)]).toEqual([1, "policy-denied"])
    expect(denied.stderr).toContain("clean")
    expect(await views(dir)).toEqual(before)
  })

  it("a freeze after approval, scoped by a tag the plan carries, still refuses the promote; a model file that substitutes an environment variable makes the plan carry no facts", async () => {
    const { dir, planId } = await plannedPromote(`[policy]\nversion = 1\ndefault_agent_effect = "allow"\n`)
    expect((await cli(dir, ["review", planId, "--approve"])).code).toBe(0)
    expect((await cli(dir, ["policy", "freeze", "--scope", "tag=tier=gold", "--reason", "incident"])).code).toBe(0)
    const frozen = await cli(dir, ["apply", planId])
    expect(frozen.code).toBe(1)
    expect(errorCode(frozen.stderr)).toBe("policy-denied")

    const substituting = environmentProject("facts-env")
    writeFileSync(join(substituting, "models", "clean.toml"), sidecar("clean", "marts", `[tags]\nowner = "\${OWNER}"\n`))
    expect((await cli(substituting, ["run"])).code).toBe(0)
    expect((await cli(substituting, ["branch", "create", "feat"])).code).toBe(0)
    writeFileSync(join(substituting, "models", "clean.sql"), "SELECT id, lower(v) AS v FROM staging.raw")
    expect((await cli(substituting, ["run", "--branch", "feat"])).code).toBe(0)
    const planned = planIdIn((await cli(substituting, ["plan", "--promote", "feat"])).stdout)
    expect(JSON.parse(readFileSync(planFile(substituting, planned), "utf8")).payload.facts).toBeUndefined()
    expect((await cli(substituting, ["review", planned, "--approve"])).code).toBe(0)
    expect((await cli(substituting, ["apply", planned])).code).toBe(0)
  })
})
