/**
 * Redis for the suite: the server on 127.0.0.1:6379 when it answers, else a private
 * `redis-server` on a free port (no persistence). Also a TLS-only server for `rediss://`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { freePort, isListening, waitForPort } from "./ports"

export interface RedisHandle {
  readonly url: string
  readonly port: number
  /** Stops the server when this suite started it; no-op for the shared one. */
  readonly stop: () => Promise<void>
}

const stopChild = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

export const spawnRedis = async (extraArgs: ReadonlyArray<string> = [], port?: number): Promise<RedisHandle & { readonly child: ChildProcess }> => {
  const p = port ?? (await freePort())
  const child = spawn("redis-server", ["--port", String(p), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (d) => (output += String(d)))
  child.stderr?.on("data", (d) => (output += String(d)))
  const listenPort = extraArgs.includes("--tls-port") ? Number(extraArgs[extraArgs.indexOf("--tls-port") + 1]) : p
  const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output.slice(-500)}`))))
  await Promise.race([waitForPort(listenPort, 10_000), exited])
  return { url: `redis://127.0.0.1:${p}`, port: p, child, stop: () => stopChild(child) }
}

export const ensureRedis = async (): Promise<RedisHandle> => {
  if (await isListening(6379)) return { url: "redis://127.0.0.1:6379", port: 6379, stop: async () => undefined }
  return spawnRedis()
}

/** A TLS-only redis-server with a fresh self-signed certificate, or a reason why not. */
export const spawnTlsRedis = async (): Promise<
  { readonly handle: RedisHandle; readonly caFile: string } | { readonly skip: string }
> => {
  const selfsigned = await import("selfsigned")
  const generate = (selfsigned as unknown as { generate: (...args: Array<unknown>) => unknown }).generate
  const pems = (await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keySize: 2048,
    days: 1,
    algorithm: "sha256",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }, { type: 2, value: "localhost" }] }]
  })) as { private: string; cert: string }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-redis-tls-"))
  const cert = path.join(dir, "cert.pem")
  const key = path.join(dir, "key.pem")
  fs.writeFileSync(cert, pems.cert)
  fs.writeFileSync(key, pems.private)
  const tlsPort = await freePort()
  try {
    const handle = await spawnRedis(
      ["--tls-port", String(tlsPort), "--tls-cert-file", cert, "--tls-key-file", key, "--tls-ca-cert-file", cert, "--tls-auth-clients", "no"],
      0
    )
    return { handle: { ...handle, url: `rediss://127.0.0.1:${tlsPort}`, port: tlsPort }, caFile: cert }
  } catch (e) {
    return { skip: `redis-server cannot serve TLS here: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}` }
  }
}
