/** Azurite blob service as a child process on loopback (telemetry off, silent, in a temp dir). */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, waitForPort } from "./ports"

export const AZURITE_ACCOUNT = "devstoreaccount1"
const AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

export interface AzuriteHandle {
  readonly port: number
  readonly connectionString: string
  readonly stop: () => Promise<void>
}

export const connectionStringFor = (port: number) =>
  `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};BlobEndpoint=http://127.0.0.1:${port}/${AZURITE_ACCOUNT};`

export const startAzurite = async (): Promise<AzuriteHandle> => {
  const require = createRequire(import.meta.url)
  const bin = path.join(path.dirname(require.resolve("azurite/package.json")), "dist", "src", "blob", "main.js")
  const location = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-azurite-"))
  const port = await freePort()
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, "--silent", "--disableTelemetry", "--loose", "--skipApiVersionCheck", "--location", location, "--blobHost", "127.0.0.1", "--blobPort", String(port)],
    { stdio: "ignore" }
  )
  await waitForPort(port, 30_000)
  return {
    port,
    connectionString: connectionStringFor(port),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => {
          fs.rmSync(location, { recursive: true, force: true })
          resolve()
        })
        child.kill("SIGTERM")
      })
  }
}
