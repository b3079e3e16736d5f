/**
 * Restore from an `s3://` artifact root on s3rver. `pcli run` writes content-addressed artifacts
 * to file:// and project directories only, so the evicted records are re-pointed at the bucket
 * with sqlite3 — the store then looks exactly as a run against that root would have left it.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, runCli } from "../support/cli"
import { freePort } from "../support/ports"
import { type S3Handle, startS3rver } from "../support/s3rver"

const BUCKET = "pcli-artifacts"
const ca = (name: string) =>
  `name = "${name}"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "${name}"\n[strategy]\ntype = "content_addressed"\nstorage_prefix = "artifacts"\n`

let s3: S3Handle
let client: S3Client
let awsEnv: Record<string, string>
beforeAll(async () => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true"
  s3 = await startS3rver(BUCKET)
  awsEnv = {
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_S3_FORCE_PATH_STYLE: "true",
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER"
  }
  client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, region: "us-east-1", credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } })
})
afterAll(async () => {
  client.destroy()
  await s3.stop()
})

const json = async (args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = awsEnv) => {
  const r = await runCli([...args, "--output", "json"], { cwd, env: { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "alice", ...env } })
  return { ...r, out: r.stdout === "" ? undefined : JSON.parse(r.stdout) }
}
const sqlite = (cwd: string, text: string) => execFileSync("sqlite3", [join(cwd, "models", ".pcli-state.sqlite"), text], { encoding: "utf8" }).trim()
const getObject = async (key: string) => {
  const out = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))
  return Buffer.from(await out.Body!.transformToByteArray())
}
const restorePlan = async (cwd: string, target: string) => {
  const plan = await json(["restore", target], cwd)
  expect(plan.code, plan.stderr).toBe(0)
  expect((await json(["review", plan.out.plan_id, "--approve"], cwd)).code).toBe(0)
  return plan.out.plan_id as string
}

describe("pcli restore from an s3:// artifact root (s3rver)", () => {
  it("restores byte-identical into the bucket; foreign bytes are never overwritten, identical bytes verify without a write; an unreachable endpoint is refused", async () => {
    const cwd = makeProject({
      "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
      "models/s3a.sql": "SELECT 1 AS id, 'a' AS v",
      "models/s3a.toml": ca("s3a"),
      "models/s3b.sql": "SELECT 2 AS id, 'b' AS v",
      "models/s3b.toml": ca("s3b"),
      "models/s3c.sql": "SELECT 3 AS id, 'c' AS v",
      "models/s3c.toml": ca("s3c")
    })
    expect((await json(["run"], cwd)).code).toBe(0)
    const plan = await json(["gc", "--derivable", "--min-age-days", "0"], cwd)
    expect((await json(["review", plan.out.plan_id, "--approve"], cwd)).code).toBe(0)
    const evicted = await json(["apply", plan.out.plan_id], cwd)
    expect(evicted.out.evicted_count).toBe(3)
    const hash = new Map<string, string>(evicted.out.evicted.map((e: { model_name: string; blake3_hash: string }) => [e.model_name, e.blake3_hash]))
    const original = (m: string) => readFileSync(join(cwd, "artifacts", `${hash.get(m)}.parquet`))
    // Re-point the evicted records at s3://pcli-artifacts/warehouse/.
    const root = `s3://${BUCKET}/warehouse`
    sqlite(cwd, `UPDATE provenance SET model_canonical_json = replace(model_canonical_json, '"storage_prefix":"artifacts"', '"storage_prefix":"${root}"'),
      output_path_json = replace(output_path_json, '"artifacts/', '"${root}/')`)
    sqlite(cwd, `UPDATE tombstones SET file_path = replace(file_path, 'artifacts/', '${root}/')`)

    const a = await json(["apply", await restorePlan(cwd, "s3a")], cwd)
    expect(a.code, a.stderr).toBe(0)
    expect(a.out).toMatchObject({ restored_count: 1, restored: [{ model_name: "s3a", file_path: `${root}/${hash.get("s3a")}.parquet`, hash_verified: true, bytes_written: true }] })
    expect(s3.puts).toEqual([`warehouse/${hash.get("s3a")}.parquet`])
    expect((await getObject(`warehouse/${hash.get("s3a")}.parquet`)).equals(original("s3a"))).toBe(true)
    expect(sqlite(cwd, "SELECT count(*) FROM artifacts WHERE model_name = 's3a'")).toBe("1")

    const keyB = `warehouse/${hash.get("s3b")}.parquet`
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyB, Body: "foreign bytes" }))
    const planB = await restorePlan(cwd, "s3b")
    const foreign = await json(["apply", planB], cwd)
    expect(foreign.out.refused).toMatchObject([{ model_name: "s3b", condition: "write", reason: expect.stringMatching(/never overwrites/) }])
    expect((await getObject(keyB)).toString()).toBe("foreign bytes")
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: keyB, Body: original("s3b") }))
    const putsBefore = s3.puts.length
    // decisions.md 34: the apply that refused used its approval up; the retry is approved again.
    expect((await json(["review", planB, "--approve"], cwd)).code).toBe(0)
    const verified = await json(["apply", planB], cwd)
    expect(verified.out.restored).toMatchObject([{ model_name: "s3b", bytes_written: false }])
    expect(s3.puts.length).toBe(putsBefore)

    const planC = await restorePlan(cwd, "s3c")
    const down = await json(["apply", planC], cwd, { ...awsEnv, AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await freePort()}` })
    expect(down.code, down.stderr).toBe(0)
    expect(down.out.refused).toMatchObject([{ model_name: "s3c", condition: "storage", reason: expect.stringMatching(/not reachable/) }])
    expect(sqlite(cwd, "SELECT count(*) FROM tombstones WHERE model_name = 's3c' AND restored_at IS NULL")).toBe("1")
  }, 240_000)
})
