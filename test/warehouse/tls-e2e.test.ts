import { bundleChildScript } from "../support/childScript"
import { spawn } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startWarehouseEmulator, type WarehouseEmulator } from "../support/warehouseEmulator"
import { CLIENT_ID, CLIENT_SECRET } from "./fixtures"

/**
 * The production path trusts the emulator only through NODE_EXTRA_CA_CERTS, which Node
 * reads at process start: so this runs the production layer in a child `node` process.
 */
let emulator: WarehouseEmulator
let script: string
let child: Awaited<ReturnType<typeof bundleChildScript>>

beforeAll(async () => {
  emulator = await startWarehouseEmulator({ clients: { [CLIENT_ID]: CLIENT_SECRET } })
  child = await bundleChildScript(join(__dirname, "child", "remoteRun.ts"), "remote-run")
  script = child.file
})
afterAll(async () => {
  child.remove()
  await emulator.close()
})

/** Async on purpose: the emulator lives in this process's event loop. */
const runChild = (env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> => {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("WAREHOUSE_") && key !== "NODE_EXTRA_CA_CERTS")
  )
  const child = spawn(process.execPath, [script], {
    env: {
      ...base,
      E2E_HOST: emulator.host,
      E2E_HTTP_PATH: emulator.httpPath,
      E2E_SQL: "SELECT 40 + 2 AS answer",
      WAREHOUSE_CLIENT_ID: CLIENT_ID,
      WAREHOUSE_CLIENT_SECRET: CLIENT_SECRET,
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000
  })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (part: Buffer) => (stdout += part.toString("utf8")))
  child.stderr.on("data", (part: Buffer) => (stderr += part.toString("utf8")))
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stdout, stderr })))
}

describe("production HTTPS trust", () => {
  it("trusts the emulator's CA through NODE_EXTRA_CA_CERTS and runs a statement over OAuth", async () => {
    emulator.resetCounts()
    const result = await runChild({ NODE_EXTRA_CA_CERTS: emulator.certificate.caFile })
    expect(result.stdout.trim()).toBe(JSON.stringify({ rows: [[42]] }))
    expect(result.status).toBe(0)
    expect(emulator.count("token")).toBe(1)
    expect(emulator.count("submit")).toBe(1)
  })

  it("refuses the emulator without the CA (trust is not disabled anywhere)", async () => {
    emulator.resetCounts()
    const result = await runChild({})
    expect(result.status).toBe(1)
    const lastLine = result.stdout.trim().split("\n").pop() ?? ""
    const output = JSON.parse(lastLine) as { error: { code: string; message: string } }
    expect(output.error.code).toBe("statement-failed")
    expect(output.error.message).toContain(`https://${emulator.host}/oidc/v1/token`)
    expect(output.error.message).toMatch(/TLS or connection setup failed \((SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)/)
    // A trust failure is not transient: one attempt, no retries.
    expect(emulator.count("token")).toBeLessThanOrEqual(1)
    expect(`${result.stdout}${result.stderr}`).not.toContain(CLIENT_SECRET)
    expect(emulator.count("submit")).toBe(0)
  })
})
