import { Effect } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { spawn } from "node:child_process"
import { connect } from "node:net"
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { makeProject, runCli } from "../support/cli"
import { type Served, seededProject, startServe, treeDigest } from "../support/serve"
import { setSchemaVersion } from "../support/stateStore"
import { CURRENT_SCHEMA_VERSION } from "../../src/services/StateStore/migrations"

let dir = ""
let server: Served

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${server.url}${path}`, { headers })
  return { status: res.status, body: await res.text(), type: res.headers.get("content-type") }
}

const cli = async (args: ReadonlyArray<string>) => {
  const r = await runCli([...args, "--output", "json"], { cwd: dir })
  return r.stdout
}

beforeAll(async () => {
  ;({ dir } = await seededProject())
  server = await startServe(dir)
})

afterAll(async () => {
  await server?.stop()
})

describe("pcli serve: each route is byte-equal to the CLI", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["/api/v1/policy", ["policy", "show"]],
    ["/api/v1/audit", ["audit"]],
    ["/api/v1/audit?product=weekly", ["audit", "--product", "weekly"]],
    ["/api/v1/audit?actor=bot-1&since=2026-01-01", ["audit", "--actor", "bot-1", "--since", "2026-01-01"]],
    ["/api/v1/audit?actor=unrecorded", ["audit", "--actor", "unrecorded"]],
    ["/api/v1/audit/scorecard", ["audit", "--scorecard"]],
    ["/api/v1/audit/scorecard?by=rule&window=all", ["audit", "--scorecard", "--by", "rule", "--window", "all"]],
    ["/api/v1/audit/scorecard?by=scope&window=2026-01-02", ["audit", "--scorecard", "--by", "scope", "--window", "2026-01-02"]],
    ["/api/v1/products", ["product", "list"]],
    ["/api/v1/products/weekly", ["product", "status", "weekly"]],
    ["/api/v1/custody/orders", ["audit", "--for", "orders"]],
    ["/api/v1/custody/p1", ["audit", "--for", "p1"]]
  ]
  for (const [path, args] of cases) {
    it(`GET ${path} = pcli ${args.join(" ")} --output json`, async () => {
      const [http, out] = await Promise.all([get(path), cli(args)])
      expect(http.status, http.body).toBe(200)
      expect(http.type).toBe("application/json")
      expect(out).not.toBe("")
      expect(http.body).toBe(out)
    })
  }

  it("a duration window differs only in window_start", async () => {
    const [http, out] = await Promise.all([get("/api/v1/audit/scorecard?window=7d"), cli(["audit", "--scorecard", "--window", "7d"])])
    const strip = (text: string) => text.replace(/"window_start": "[^"]+"/, '"window_start": "…"')
    expect(http.status).toBe(200)
    expect(JSON.parse(http.body).evaluations).toBe(1)
    expect(strip(http.body)).toBe(strip(out))
  })

  it("brief differs only in generated_at and since_timestamp", async () => {
    const [http, out] = await Promise.all([get("/api/v1/brief"), cli(["brief", "--since", "7d"])])
    const strip = (text: string) => text.replace(/"generated_at": "[^"]+"/, '"generated_at": "…"').replace(/"since_timestamp": "[^"]+"/, '"since_timestamp": "…"')
    expect(http.status, http.body).toBe(200)
    expect(JSON.parse(http.body).since_mode).toBe("7d")
    expect(strip(http.body)).toBe(strip(out))
  })

  it("audit?since=7d selects the recent decision, as --since 7d does (same rows)", async () => {
    const [http, out] = await Promise.all([get("/api/v1/audit?since=7d"), cli(["audit", "--since", "7d"])])
    const entries = (text: string) => JSON.parse(text).entries
    expect(entries(http.body)).toHaveLength(1)
    expect(entries(http.body)).toEqual(entries(out))
  })

  it("the product journal of an unknown product is 404 product_not_found, as the CLI's error", async () => {
    const http = await get("/api/v1/products/nosuch/journal")
    expect(http.status).toBe(404)
    const body = JSON.parse(http.body)
    expect(Object.keys(body)).toEqual(["code", "message", "remediation_hint"])
    expect(body.code).toBe("product_not_found")
    const r = await runCli(["product", "journal", "nosuch", "--output", "json"], { cwd: dir })
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).error).toEqual({ code: body.code, message: body.message })
  })

  it("health answers ok; the OpenAPI document lists every route", async () => {
    expect(JSON.parse((await get("/api/v1/health")).body)).toEqual({ status: "ok" })
    const spec = JSON.parse((await get("/api/v1/openapi.json")).body)
    expect(Object.keys(spec.paths).sort()).toEqual(
      [
        "/api/v1/audit",
        "/api/v1/audit/scorecard",
        "/api/v1/audit/verify",
        "/api/v1/events",
        "/api/v1/lineage/{model}",
        "/api/v1/models",
        "/api/v1/models/{model}",
        "/api/v1/plans",
        "/api/v1/plans/{id}",
        "/api/v1/plans/{id}/status",
        "/api/v1/policy/check",
        "/api/v1/review-queue",
        "/api/v1/runs",
        "/api/v1/runs/{id}",
        "/api/v1/brief",
        "/api/v1/custody/{subject}",
        "/api/v1/health",
        "/api/v1/policy",
        "/api/v1/products",
        "/api/v1/products/{name}",
        "/api/v1/products/{name}/journal"
      ].sort()
    )
  })

  it("every request is logged as one line: method, path, status, ms", async () => {
    await get("/api/v1/health")
    // Lines are written in batches, a few milliseconds after their requests.
    await vi.waitFor(() => expect(server.stderr()).toMatch(/^GET \/api\/v1\/health 200 \d+\.\dms$/m))
  })
})

/** One GET over a raw socket that half-closes (FIN) right after the request; resolves with all it got back. */
const halfClosedGet = (url: string, path: string) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`)
      socket.end()
    })
    let got = ""
    socket.setEncoding("utf8").on("data", (d: string) => (got += d))
    socket.on("error", reject)
    socket.on("close", () => resolve(got))
  })

describe("pcli serve: half-closed requests", () => {
  it("a client that half-closes its socket after a complete GET still gets the whole answer, every time", async () => {
    const expected = await cli(["policy", "show"])
    for (let i = 0; i < 40; i++) {
      const raw = await halfClosedGet(server.url, "/api/v1/policy")
      expect(raw, `attempt ${i}`).toMatch(/^HTTP\/1\.1 200 /)
      expect(raw.slice(raw.indexOf("\r\n\r\n") + 4)).toBe(expected)
    }
  })
})

describe("pcli serve: errors", () => {
  it("a malformed actor or since is 400 with {code, message, remediation_hint}", async () => {
    for (const [path, code] of [
      ["/api/v1/audit?actor=Not%20An%20Id", "invalid-principal-id"],
      ["/api/v1/audit?since=yesterday", "invalid-since"],
      ["/api/v1/audit/scorecard?by=colour", "invalid-by"],
      ["/api/v1/brief?since=yesterday", "invalid-since"]
    ] as const) {
      const http = await get(path)
      expect(http.status, path).toBe(400)
      const body = JSON.parse(http.body)
      expect(Object.keys(body)).toEqual(["code", "message", "remediation_hint"])
      expect(body.code).toBe(code)
    }
  })

  it("a repeated query parameter is 400 usage in our body, not the framework's", async () => {
    for (const path of ["/api/v1/audit?since=1d&since=2d", "/api/v1/audit/scorecard?by=rule&by=scope", "/api/v1/brief?since=7d&since=7d"]) {
      const http = await get(path)
      expect(http.status, path).toBe(400)
      const body = JSON.parse(http.body)
      expect(Object.keys(body)).toEqual(["code", "message", "remediation_hint"])
      expect(body.code).toBe("usage")
    }
  })

  it("a pcli.toml that does not load is refused at start-up, as other commands refuse it", async () => {
    const broken = makeProject({ "pcli.toml": "[policy\nversion = 1\n" })
    const [serve, show] = await Promise.all([runCli(["serve", "--port", "0"], { cwd: broken }), runCli(["policy", "show"], { cwd: broken })])
    expect(show.code).not.toBe(0)
    expect(serve.code).toBe(show.code)
    expect(serve.stderr).toBe(show.stderr)
    expect(serve.stderr).toMatch(/^error\[toml-syntax\]/)
  })

  it("an unknown path is 404 with the same body shape", async () => {
    const http = await get("/api/v2/nothing")
    expect(http.status).toBe(404)
    expect(JSON.parse(http.body).code).toBe("route_not_found")
  })

  it("a store written by a newer engine is 409 state-store-newer, and nothing is written", async () => {
    const { dir: other, store } = await seededProject()
    await Effect.runPromise(setSchemaVersion(store, CURRENT_SCHEMA_VERSION + 1))
    const before = treeDigest(other)
    const s = await startServe(other)
    try {
      const res = await fetch(`${s.url}/api/v1/policy`)
      expect(res.status).toBe(409)
      expect(JSON.parse(await res.text())).toMatchObject({ code: "state-store-newer", remediation_hint: "upgrade pcli to read this store" })
    } finally {
      await s.stop()
    }
    expect(treeDigest(other)).toBe(before)
  })
})

describe("pcli serve: a kept body is never stale", () => {
  const policyAt = async (url: string, cwd: string) => {
    const [http, out] = await Promise.all([fetch(`${url}/api/v1/policy`).then((r) => r.text()), runCli(["policy", "show", "--output", "json"], { cwd })])
    expect(http).toBe(out.stdout)
    return JSON.parse(http) as { freezes: ReadonlyArray<unknown>; rules: ReadonlyArray<unknown>; ledger_head_hash: string }
  }

  it("policy follows every ledger write and every pcli.toml edit", async () => {
    const { dir: project } = await seededProject()
    const s = await startServe(project)
    try {
      const first = await policyAt(s.url, project)
      expect(first.freezes).toHaveLength(0)
      // Kept: the same bytes again while nothing changed.
      expect(await (await fetch(`${s.url}/api/v1/policy`)).text()).toBe(JSON.stringify(first, null, 2) + "\n")
      for (const verb of ["freeze", "unfreeze", "freeze"] as const) {
        const r = await runCli(["policy", verb, "--principal", "agent", "--scope", "layer=staging", "--reason", "incident 42", "--principal-id", "oncall"], { cwd: project })
        expect(r.code, r.stderr).toBe(0)
        expect((await policyAt(s.url, project)).freezes).toHaveLength(verb === "freeze" ? 1 : 0)
      }
      appendFileSync(join(project, "pcli.toml"), `\n[[policy.rules]]\nprincipal = "human"\ncapability = "apply"\neffect = "allow"\nscope = { any = true }\n`)
      expect((await policyAt(s.url, project)).rules).toHaveLength(2)
    } finally {
      await s.stop()
    }
  })

  it("with a writer holding the store open (its -wal stays), every commit shows in the next answers, also to requests sent together", async () => {
    const { dir: project, store } = await seededProject()
    // A second connection that stays open: the -wal outlives each CLI write, so the server opens the store the ordinary way.
    const holder = spawn("sqlite3", [store], { stdio: ["pipe", "pipe", "inherit"] })
    const opened = new Promise<void>((done) => holder.stdout.setEncoding("utf8").once("data", () => done()))
    holder.stdin.write("SELECT count(*) FROM ledger;\n")
    await opened
    expect(existsSync(`${store}-wal`)).toBe(true)
    const s = await startServe(project)
    try {
      expect((await policyAt(s.url, project)).freezes).toHaveLength(0)
      for (const verb of ["freeze", "unfreeze", "freeze"] as const) {
        const r = await runCli(["policy", verb, "--principal", "agent", "--scope", "layer=staging", "--reason", "incident 7", "--principal-id", "oncall"], { cwd: project })
        expect(r.code, r.stderr).toBe(0)
        expect(existsSync(`${store}-wal`)).toBe(true)
        const expected = (await runCli(["policy", "show", "--output", "json"], { cwd: project })).stdout
        // Sent at once, so most share one look at the files: each must still see the commit.
        const bodies = await Promise.all(Array.from({ length: 12 }, () => fetch(`${s.url}/api/v1/policy`).then((res) => res.text())))
        for (const body of bodies) expect(body).toBe(expected)
        expect(JSON.parse(expected).freezes).toHaveLength(verb === "freeze" ? 1 : 0)
      }
    } finally {
      await s.stop()
      holder.stdin.end()
      await new Promise((done) => holder.once("exit", done))
    }
  })

  it("with freeze markers in an object tier, policy is read afresh: a marker written by hand shows at once", async () => {
    const objects = makeProject()
    const project = makeProject({
      "pcli.toml": `[policy]\nversion = 1\ndefault_agent_effect = "allow"\n\n[state]\nobject_store_url = "${pathToFileURL(objects).href}/"\n`,
      "models/.keep": ""
    })
    const s = await startServe(project)
    try {
      expect((await policyAt(s.url, project)).freezes).toHaveLength(0)
      mkdirSync(join(objects, "freeze"))
      writeFileSync(join(objects, "freeze", "f1.json"), JSON.stringify({ freeze_id: "f1", principal: "agent", scope: "layer=gold", reason: "by hand", created_at: "2026-01-01T00:00:00.000Z" }))
      expect((await policyAt(s.url, project)).freezes).toHaveLength(1)
    } finally {
      await s.stop()
    }
  })
})

describe("pcli serve: never writes", () => {
  it("a random sequence of GETs changes no byte under the project or the store", async () => {
    const paths = [
      "/api/v1/policy",
      "/api/v1/brief?since=7d",
      "/api/v1/brief?since=last",
      "/api/v1/audit",
      "/api/v1/audit?since=7d",
      "/api/v1/audit?actor=bot-1",
      "/api/v1/audit?product=weekly",
      "/api/v1/audit/scorecard?by=rule",
      "/api/v1/custody/orders",
      "/api/v1/products",
      "/api/v1/products/weekly",
      "/api/v1/products/weekly/journal",
      "/api/v1/products/nosuch",
      "/api/v1/health",
      "/api/v1/openapi.json",
      "/"
    ]
    const { dir: project } = await seededProject()
    const before = treeDigest(project)
    const s = await startServe(project)
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...paths), { minLength: 1, maxLength: 12 }), async (sequence) => {
          for (const path of sequence) await (await fetch(`${s.url}${path}`)).arrayBuffer()
          expect(treeDigest(project)).toBe(before)
        }),
        { numRuns: 25 }
      )
    } finally {
      await s.stop()
    }
    expect(treeDigest(project)).toBe(before)
  })
})

describe("pcli serve: binding and the token", () => {
  it("off loopback without PCLI_SERVE_TOKEN is refused at start-up", async () => {
    const r = await runCli(["serve", "--host", "0.0.0.0", "--port", "0"], { cwd: dir })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^error\[serve-token-required\]: refusing to bind 0\.0\.0\.0/)
  })

  it("with a token, a request without the header is 401; with it, 200; health stays open", async () => {
    const s = await startServe(dir, ["--host", "0.0.0.0"], { PCLI_SERVE_TOKEN: "s3cret-token" })
    try {
      const url = s.url.replace("0.0.0.0", "127.0.0.1")
      const without = await fetch(`${url}/api/v1/policy`)
      expect(without.status).toBe(401)
      expect(JSON.parse(await without.text()).code).toBe("unauthorized")
      const wrong = await fetch(`${url}/api/v1/policy`, { headers: { Authorization: "Bearer s3cret-tokeX" } })
      expect(wrong.status).toBe(401)
      const right = await fetch(`${url}/api/v1/policy`, { headers: { Authorization: "Bearer s3cret-token" } })
      expect(right.status).toBe(200)
      expect(await right.text()).toBe(await cli(["policy", "show"]))
      expect((await fetch(`${url}/api/v1/health`)).status).toBe(200)
      expect(s.stderr()).not.toContain("s3cret-token")
    } finally {
      expect(await s.stop()).toBe(0)
    }
  })
})
