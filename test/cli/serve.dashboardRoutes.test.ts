// The dashboard's read routes (issue 36): each byte-equal to the CLI's `--output json`, read-only,
// unknown query parameters 400, other methods 405 with Allow, and the event stream.
import { DuckDBInstance } from "@duckdb/node-api"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runCli } from "../support/cli"
import { type DashboardProject, dashboardProject } from "../support/dashboard"
import { type Served, startServe } from "../support/serve"

let project: DashboardProject
let server: Served

const get = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${server.url}${path}`, init)
  return { status: res.status, body: await res.text(), type: res.headers.get("content-type"), allow: res.headers.get("allow") }
}

const cli = async (args: ReadonlyArray<string>) => (await runCli([...args, "--output", "json"], { cwd: project.dir })).stdout

beforeAll(async () => {
  project = await dashboardProject()
  server = await startServe(project.dir)
}, 120_000)

afterAll(async () => {
  await server?.stop()
})

describe("pcli serve: the dashboard's routes are byte-equal to the CLI", () => {
  const cases = (): ReadonlyArray<readonly [string, ReadonlyArray<string>]> => [
    ["/api/v1/runs", ["history"]],
    ["/api/v1/runs?last=1&model=broken_orders", ["history", "--last", "1", "--model", "broken_orders"]],
    [`/api/v1/runs/${project.failedRunId}`, ["history", project.failedRunId]],
    ["/api/v1/models", ["ls"]],
    ["/api/v1/models/broken_orders", ["show", "broken_orders"]],
    ["/api/v1/lineage/stg_orders", ["lineage", "stg_orders"]],
    ["/api/v1/plans", ["review", "--list"]],
    [`/api/v1/plans/${project.planId}`, ["review", project.planId]],
    [`/api/v1/plans/${project.planId}/status`, ["review", project.planId, "--status"]],
    ["/api/v1/audit?limit=2", ["audit", "--limit", "2"]],
    ["/api/v1/audit?limit=2&cursor=2", ["audit", "--limit", "2", "--cursor", "2"]],
    ["/api/v1/audit?actor=bot-1&effect=require_review", ["audit", "--actor", "bot-1", "--effect", "require_review"]],
    ["/api/v1/audit?model=layer%3Dstaging&limit=5", ["audit", "--model", "layer=staging", "--limit", "5"]],
    ["/api/v1/policy/check?principal=agent&capability=propose&model=mart_customer_ltv", ["policy", "check", "--principal", "agent", "--capability", "propose", "--model", "mart_customer_ltv"]],
    ["/api/v1/products", ["product", "list"]]
  ]
  it("every route", async () => {
    for (const [path, args] of cases()) {
      const [http, out] = await Promise.all([get(path), cli(args)])
      expect(http.status, `${path}: ${http.body}`).toBe(200)
      expect(http.type).toBe("application/json")
      expect(out, path).not.toBe("")
      expect(http.body, path).toBe(out)
    }
  })

  it("the review queue: byte-equal but for staleness_seconds and score, which count the seconds between the two reads", async () => {
    const clock = (text: string) => text.replace(/"staleness_seconds": \d+/g, '"staleness_seconds": N').replace(/"score": [0-9.e+-]+/g, '"score": N')
    const [http, out] = await Promise.all([get("/api/v1/review-queue"), cli(["review", "--queue"])])
    expect(http.status).toBe(200)
    expect(clock(http.body)).toBe(clock(out))
    expect(JSON.parse(out).pending[0].plan_id).toBe(project.planId)
  })

  it("the chain's verification is the CLI's report; the page's pager follows next_cursor to the end", async () => {
    const [http, out] = await Promise.all([get("/api/v1/audit/verify"), cli(["audit", "--verify"])])
    // Byte-equal, the warehouse's witnessed head included (the route opens the warehouse READ_ONLY for the request alone).
    expect(http.body).toBe(out)
    const verify = JSON.parse(http.body)
    expect(verify.intact).toBe(true)
    expect(verify.witnesses).toContainEqual(expect.objectContaining({ source: "warehouse", status: "in_chain" }))
    // The route let go of the file: a writer opens it at once (a kept handle would lock `pcli run` out).
    const writer = await DuckDBInstance.create(join(project.dir, ".pcli", "warehouse.duckdb"))
    writer.closeSync()
    const all = JSON.parse(await cli(["audit"])).entries
    const paged: Array<unknown> = []
    let cursor: string | null = "0"
    while (cursor !== null) {
      const page = JSON.parse((await get(`/api/v1/audit?limit=3&cursor=${cursor}`)).body)
      paged.push(...page.entries)
      cursor = page.next_cursor
    }
    expect(paged).toEqual(all)
  })

  it("a tampered product snapshot is snapshot_tampered, never spec_approved", async () => {
    const status = JSON.parse((await get("/api/v1/products/daily")).body)
    expect([status.fulfill_state, status.recorded_state, status.snapshot_intact]).toEqual(["snapshot_tampered", "spec_approved", false])
  })
})

describe("pcli serve: refusals", () => {
  it("an unknown query parameter is 400 usage, naming the ones the route takes", async () => {
    const r = await get("/api/v1/runs?lats=5")
    expect(r.status).toBe(400)
    expect(JSON.parse(r.body)).toEqual({ code: "usage", message: '/api/v1/runs takes no query parameter "lats" (it takes last, model)', remediation_hint: "GET /api/v1/openapi.json lists each route's parameters" })
    expect((await get("/api/v1/models?x=1")).status).toBe(400)
  })

  it("bad values are 400 and unknown ids 404, each with the error body", async () => {
    for (const [path, status, code] of [
      ["/api/v1/audit?limit=0", 400, "invalid-limit"],
      ["/api/v1/audit?cursor=3", 400, "usage"],
      ["/api/v1/audit?limit=2&cursor=x", 400, "invalid-cursor"],
      ["/api/v1/runs?last=abc", 400, "invalid-last"],
      ["/api/v1/runs?last=0", 400, "invalid-last"],
      ["/api/v1/runs/run-nope", 404, "run-not-found"],
      ["/api/v1/models/nope", 404, "model-not-found"]
    ] as const) {
      const r = await get(path)
      expect([path, r.status, JSON.parse(r.body).code]).toEqual([path, status, code])
      expect(Object.keys(JSON.parse(r.body))).toEqual(["code", "message", "remediation_hint"])
    }
  })

  it("a non-GET is 405 with Allow, on API routes and on the dashboard's files", async () => {
    for (const path of ["/api/v1/runs", `/api/v1/plans/${project.planId}`, "/api/v1/events", "/"]) {
      const r = await get(path, { method: "POST" })
      expect([path, r.status, r.allow, JSON.parse(r.body).code]).toEqual([path, 405, "GET, HEAD", "method_not_allowed"])
    }
    // Nothing was approved or written by any of it.
    expect(JSON.parse(await cli(["review", project.planId, "--status"])).reviewed).toBe(false)
  })

  it("the OpenAPI document lists every new route and the error body", async () => {
    const doc = JSON.parse((await get("/api/v1/openapi.json")).body)
    for (const p of ["/api/v1/runs", "/api/v1/runs/{id}", "/api/v1/models", "/api/v1/models/{model}", "/api/v1/lineage/{model}", "/api/v1/plans", "/api/v1/plans/{id}", "/api/v1/plans/{id}/status", "/api/v1/review-queue", "/api/v1/audit/verify", "/api/v1/events"]) {
      expect(doc.paths[p]?.get, p).toBeDefined()
    }
    expect(doc.paths["/api/v1/audit"].get.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["limit", "cursor", "model", "effect"]))
    // Every error response documents the body {code, message, remediation_hint}.
    for (const [path, status] of [["/api/v1/runs", "400"], ["/api/v1/runs/{id}", "404"], ["/api/v1/plans/{id}", "404"], ["/api/v1/models/{model}", "404"]] as const) {
      const schema = doc.paths[path].get.responses[status].content["application/json"].schema
      const body = (schema.anyOf ?? [schema]).find((s: { properties?: object }) => s.properties !== undefined)
      expect(Object.keys(body.properties), `${path} ${status}`).toEqual(["code", "message", "remediation_hint"])
    }
  })
})

describe("pcli serve: /api/v1/events", () => {
  it("sends ready with the ledger head seq, then one change carrying the new seq when the store changes", async () => {
    const res = await fetch(`${server.url}/api/v1/events`)
    expect(res.headers.get("content-type")).toBe("text/event-stream")
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ""
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read()
        if (done) throw new Error(`stream ended: ${text}`)
        text += value
      }
      return pattern.exec(text)!
    }
    const ready = await until(/event: ready\ndata: \{"head_seq":(\d+)\}\n\n/)
    const frozen = await runCli(["policy", "freeze", "--principal", "agent", "--scope", "layer=raw", "--reason", "events test"], { cwd: project.dir, env: { PCLI_PRINCIPAL: "human", PCLI_PRINCIPAL_ID: "dana" } })
    expect(frozen.code, frozen.stderr).toBe(0)
    const change = await until(/event: change\ndata: \{"head_seq":(\d+)\}\n\n/)
    expect(Number(change[1])).toBe(Number(ready[1]) + 1)
    await reader.cancel()
  })
})
