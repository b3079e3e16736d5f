// `pcli mcp` echoes a request's id as sent (spec decision 39): the raw output line carries the id's
// exact JSON token, whatever JSON.parse would make of it (beyond 2^53, 1e400, 1.50, -0).
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeProject, PCLI_BIN, runCli } from "../support/cli"

let server: ChildProcessWithoutNullStreams
const lines: Array<string> = []
let wake: (() => void) | undefined

beforeAll(async () => {
  const dir = makeProject()
  const made = await runCli(["playground", "pg"], { cwd: dir })
  expect(made.code).toBe(0)
  server = spawn(process.execPath, [PCLI_BIN, "mcp", "--profile", "ids"], { cwd: join(dir, "pg"), env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "" } })
  let buffer = ""
  server.stdout.setEncoding("utf8").on("data", (d: string) => {
    buffer += d
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      lines.push(buffer.slice(0, nl))
      buffer = buffer.slice(nl + 1)
    }
    wake?.()
  })
  await exchange(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ids","version":"1"}}}`)
})

afterAll(() => {
  server?.stdin.end()
})

/** The first raw output line from index `from` on that `match`es, waiting for it as long as the test's timeout allows. */
const lineFrom = async (from: number, match: (line: string) => boolean): Promise<string> => {
  for (;;) {
    const found = lines.slice(from).find(match)
    if (found !== undefined) return found
    await new Promise<void>((resolve) => (wake = resolve))
  }
}

/** Sends one raw line and returns the next raw line written: each request here gets exactly one answer, in turn. */
const exchange = (line: string) => {
  const from = lines.length
  server.stdin.write(`${line}\n`)
  return lineFrom(from, () => true)
}

describe("pcli mcp echoes the id as sent", () => {
  it("answers tools/list with id 9007199254740993 under exactly that token", async () => {
    const answer = await exchange(`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list"}`)
    expect(answer).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254740993,"result":\{"tools":\[/)
  })

  it("echoes numbers JSON.parse cannot keep: a huge integer, 1e400, 1.50, -0, an exponent", async () => {
    for (const id of ["123456789012345678901234567890123456789", "1e400", "1.50", "-0", "-9007199254740993", "12E+3"]) {
      const answer = await exchange(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`)
      expect(answer).toBe(`{"jsonrpc":"2.0","id":${id},"result":{}}`)
    }
  })

  it("echoes a big id on an unknown method (-32601), an invalid request (-32600) and bad params (-32602)", async () => {
    expect(await exchange(`{"jsonrpc":"2.0","id":9007199254740995,"method":"tools/nope"}`)).toMatch(/^\{"jsonrpc":"2\.0","id":9007199254740995,"error":\{"code":-32601,/)
    expect(await exchange(`{"jsonrpc":"1.0","id":18446744073709551617,"method":"ping"}`)).toMatch(/^\{"jsonrpc":"2\.0","id":18446744073709551617,"error":\{"code":-32600,/)
    expect(await exchange(`{"jsonrpc":"2.0","id":1.000000000000000000001,"method":"tools/call"}`)).toMatch(/^\{"jsonrpc":"2\.0","id":1\.000000000000000000001,"error":\{"code":-32602,/)
  })

  it("finds the top-level id after nested values, escaped strings and whitespace, and the last one when repeated", async () => {
    const nested = `{ "jsonrpc" : "2.0", "method":"ping", "params":{"_meta":{"id":1,"s":"\\"},\\"id\\":2"}}, "x":[{"id":3}], "id"  :  9007199254740997 }`
    expect(await exchange(nested)).toBe(`{"jsonrpc":"2.0","id":9007199254740997,"result":{}}`)
    expect(await exchange(`{"jsonrpc":"2.0","id":5,"method":"ping","\\u0069d":9007199254740999}`)).toBe(
      `{"jsonrpc":"2.0","id":9007199254740999,"result":{}}`
    )
  })

  it("leaves a string id and a null id as they were", async () => {
    expect(await exchange(`{"jsonrpc":"2.0","id":"9007199254740993","method":"ping"}`)).toBe(`{"jsonrpc":"2.0","id":"9007199254740993","result":{}}`)
    expect(await exchange(`{"jsonrpc":"2.0","id":"a\\u00e9\\"b","method":"ping"}`)).toBe(`{"jsonrpc":"2.0","id":"aé\\"b","result":{}}`)
    expect(await exchange(`{"jsonrpc":"2.0","id":null,"method":"ping"}`)).toMatch(/^\{"jsonrpc":"2\.0","id":null,"error":\{"code":-32600,/)
  })

  it("keeps two ids JSON.parse would merge apart: cancelling one does not cancel the other", async () => {
    const from = lines.length
    server.stdin.write(
      `{"jsonrpc":"2.0","id":9007199254741001,"method":"tools/call","params":{"name":"policy_show","arguments":{}}}\n` +
        `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254741000}}\n`
    )
    // Before the fix both read as 9007199254741000: the request was cancelled and never answered (the test timed out).
    const answer = JSON.parse(await lineFrom(from, (l) => l.startsWith(`{"jsonrpc":"2.0","id":9007199254741001,`))) as { result?: { isError?: boolean } }
    expect(answer.result?.isError).toBeFalsy()
  })
})
