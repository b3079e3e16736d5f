// `pcli mcp` survives any input (issue 38): one server, fed generated bad lines between valid
// requests. Every valid request is answered under its own id, every bad line with its JSON-RPC
// 2.0 error code, and stderr never carries a stack.
import fc from "fast-check"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, PCLI_BIN } from "../support/cli"

type Id = string | number
type Expected =
  | { readonly kind: "result"; readonly id: Id; readonly tool?: boolean }
  | { readonly kind: "error"; readonly id: Id | null; readonly code: number; readonly field?: string }
interface Case {
  readonly line: string
  readonly expected: Expected
}

let server: ChildProcessWithoutNullStreams
let stderr = ""
const answers: Array<Record<string, unknown>> = []
let wake: (() => void) | undefined

beforeAll(() => {
  const cwd = makeProject({
    "pcli.toml": `[adapter.local]\ntype = "embedded"\n`,
    "models/a.sql": "SELECT 1 AS id",
    "models/a.toml": `name = "a"\n[target]\ncatalog = "w"\nschema = "s"\ntable = "a"\n`
  })
  server = spawn(process.execPath, [PCLI_BIN, "mcp", "--profile", "prop"], { cwd, env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" } })
  let buffer = ""
  server.stdout.setEncoding("utf8").on("data", (d: string) => {
    buffer += d
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      answers.push(JSON.parse(buffer.slice(0, nl)) as Record<string, unknown>)
      buffer = buffer.slice(nl + 1)
    }
    wake?.()
  })
  server.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
})

afterAll(() => {
  server?.stdin.end()
})

/** Writes the lines in one go and waits for `count` answers. */
const exchange = async (lines: ReadonlyArray<string>, count: number) => {
  answers.length = 0
  server.stdin.write(lines.map((l) => `${l}\n`).join(""))
  const deadline = Date.now() + 20_000
  while (answers.length < count) {
    if (Date.now() > deadline) throw new Error(`${answers.length} of ${count} answers: ${JSON.stringify(answers).slice(0, 500)}`)
    await new Promise<void>((resolve) => {
      wake = resolve
      setTimeout(resolve, 200)
    })
  }
  // Nothing more should come: a bad line gets one answer, never two.
  await new Promise((resolve) => setTimeout(resolve, 50))
  return [...answers]
}

let serial = 0
/** Ids of every type a client may send, unique within a run so each answer is matched to its request. */
const id = fc.constantFrom("string", "integer", "fraction", "negative").map((kind): Id => {
  const n = ++serial
  return kind === "string" ? `req-${n}-é` : kind === "integer" ? n * 10 : kind === "fraction" ? n + 0.5 : -n
})
const request = (rid: Id, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id: rid, method, ...(params === undefined ? {} : { params }) })
const tool = (rid: Id, name: string, args: unknown) => request(rid, "tools/call", { name, arguments: args })
const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

const valid: fc.Arbitrary<Case> = fc.oneof(
  id.map((rid) => ({ line: request(rid, "ping"), expected: { kind: "result", id: rid } as const })),
  id.map((rid) => ({ line: tool(rid, "policy_show", {}), expected: { kind: "result", id: rid, tool: true } as const })),
  id.map((rid) => ({ line: tool(rid, "lineage", { model: "a" }), expected: { kind: "result", id: rid, tool: true } as const }))
)

const notJson = fc
  .oneof(fc.constantFrom("not json", "{", "", "\u0000", "{\"jsonrpc\":\"2.0\",", "[1,", "\u0000{}"), fc.string({ maxLength: 40 }).map((s) => `{${s}`))
  .filter((s) => !s.includes("\n") && !parses(s))
const parses = (s: string) => {
  try {
    JSON.parse(s)
    return true
  } catch {
    return false
  }
}

const bad: fc.Arbitrary<Case> = fc.oneof(
  notJson.map((line) => ({ line, expected: { kind: "error", id: null, code: -32700 } as const })),
  fc
    .oneof(fc.integer(), fc.string({ maxLength: 20 }), fc.constant(null), fc.boolean(), fc.array(fc.integer(), { maxLength: 3 }))
    .map((value) => ({ line: JSON.stringify(value), expected: { kind: "error", id: null, code: -32600 } as const })),
  fc
    .constantFrom<unknown>(null, true, {}, [], [1])
    .map((rid) => ({ line: JSON.stringify({ jsonrpc: "2.0", id: rid, method: "ping" }), expected: { kind: "error", id: null, code: -32600 } as const })),
  id.map((rid) => ({ line: JSON.stringify({ jsonrpc: "1.0", id: rid, method: "ping" }), expected: { kind: "error", id: rid, code: -32600 } as const })),
  fc
    .tuple(id, fc.constantFrom("", "nope", "tools/run", "@effect/rpc/Eof"))
    .map(([rid, method]) => ({ line: request(rid, method), expected: { kind: "error", id: rid, code: -32601 } as const })),
  id.map((rid) => ({ line: request(rid, "tools/call"), expected: { kind: "error", id: rid, code: -32602, field: "params" } as const })),
  id.map((rid) => ({ line: request(rid, "tools/call", { name: "lineage" }), expected: { kind: "error", id: rid, code: -32602 } as const })),
  id.map((rid) => ({ line: request(rid, "tools/call", { name: "lineage", arguments: "a" }), expected: { kind: "error", id: rid, code: -32602, field: "arguments" } as const })),
  id.map((rid) => ({ line: request(rid, "ping", { _meta: { progressToken: null } }), expected: { kind: "error", id: rid, code: -32602 } as const })),
  fc
    .tuple(id, fc.constantFrom("policy_show", "dependents", "propose"), fc.integer({ min: 66, max: 10_000 }))
    .map(([rid, name, depth]) => ({
      line: `{"jsonrpc":"2.0","id":${JSON.stringify(rid)},"method":"tools/call","params":{"name":"${name}","arguments":{"x":${deep(depth)}}}}`,
      expected: { kind: "error", id: rid, code: -32602 } as const
    })),
  fc
    .tuple(id, fc.constantFrom(["propose", "base"], ["lineage", "model"], ["policy_check", "model"]))
    .map(([rid, [name, field]]) => ({ line: tool(rid, name!, { [field!]: "a\u0000b" }), expected: { kind: "error", id: rid, code: -32602, field } as const })),
  fc
    .tuple(id, fc.constantFrom(300_000, 5_000_000))
    .map(([rid, size]) => ({ line: tool(rid, "lineage", { model: "x".repeat(size) }), expected: { kind: "error", id: rid, code: -32602 } as const }))
)

const check = async (cases: ReadonlyArray<Case>) => {
  const got = await exchange(
    cases.map((c) => c.line),
    cases.length
  )
  expect(got).toHaveLength(cases.length)
  const byId = new Map(got.filter((a) => a["id"] !== null).map((a) => [JSON.stringify(a["id"]), a]))
  const nullCodes = got.filter((a) => a["id"] === null).map((a) => (a["error"] as { code: number }).code).sort()
  const expectedNull: Array<number> = []
  for (const { expected } of cases) {
    expect(got.every((a) => a["jsonrpc"] === "2.0")).toBe(true)
    if (expected.kind === "error" && expected.id === null) {
      expectedNull.push(expected.code)
      continue
    }
    const answer = byId.get(JSON.stringify(expected.id))
    expect(answer, `no answer for id ${JSON.stringify(expected.id)}`).toBeDefined()
    expect(answer!["id"]).toStrictEqual(expected.id)
    if (expected.kind === "result") {
      expect(answer!["error"]).toBeUndefined()
      if (expected.tool === true) expect((answer!["result"] as { isError?: boolean }).isError).toBeFalsy()
    } else {
      const error = answer!["error"] as { code: number; data?: { field?: string } }
      expect(error.code).toBe(expected.code)
      if (expected.field !== undefined) expect(error.data?.field).toBe(expected.field)
    }
  }
  expect(nullCodes).toEqual(expectedNull.sort())
}

describe("pcli mcp survives any input", () => {
  it("answers every valid request under its own id and every bad line with its JSON-RPC code, in any mix", async () => {
    await check([{ line: request(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "prop", version: "1" } }), expected: { kind: "result", id: 1 } }])
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof({ arbitrary: valid, weight: 1 }, { arbitrary: bad, weight: 2 }), { minLength: 1, maxLength: 8 }), check),
      { numRuns: 25 }
    )
  }, 120_000)

  it("refuses a line longer than the limit unread, then serves the next", async () => {
    await check([
      { line: "x".repeat(9 * 1024 * 1024), expected: { kind: "error", id: null, code: -32600 } },
      { line: request("after", "ping"), expected: { kind: "result", id: "after" } }
    ])
  })

  it("a cancelled request gets no error answer, and the next request is served", async () => {
    answers.length = 0
    server.stdin.write(`${tool("c1", "policy_show", {})}\n${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "c1" } })}\n${request("after-cancel", "ping")}\n`)
    const deadline = Date.now() + 10_000
    while (!answers.some((a) => a["id"] === "after-cancel") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(answers.find((a) => a["id"] === "after-cancel")).toMatchObject({ result: {} })
    // Cancelled in flight: no answer; answered before the cancel arrived: its result. Never an error.
    expect(answers.filter((a) => a["error"] !== undefined)).toEqual([])
  })

  it("keeps stderr to one line per bad message, with no stack and no bundle path", () => {
    expect(stderr).not.toMatch(/^\s+at /m)
    expect(stderr).not.toMatch(/pcli\.cjs|SyntaxError|RangeError/)
    for (const line of stderr.split("\n").filter((l) => l !== "")) expect(line).toMatch(/^pcli mcp: /)
  })
})
