// The main thread's side of the read-only DuckDB worker (readOnlyWorker.ts): the bin starts it
// (`startReadOnlyWorker`, for `audit --verify`), the embedded warehouse opened READ_ONLY takes it
// (`takeReadOnlyWorker`) and sends it the file, its settings and its statements.
import { existsSync } from "node:fs"
import { join } from "node:path"
import type { Worker as WorkerThread } from "node:worker_threads"
import { READ_ONLY_WORKER_FILE, READ_ONLY_WORKER_KEY, type ReaderReply, type ReaderRequest } from "./readOnlyProtocol"

type Request = ReaderRequest extends infer R ? (R extends { readonly id: number } ? Omit<R, "id"> : never) : never

/** Sends one request and waits for its reply; rejects with DuckDB's message (or the worker's failure). */
export type ReadOnlyWorker = (request: Request) => Promise<ReaderReply & { ok: true }>

interface Started {
  readonly send: ReadOnlyWorker
  /** Set when the worker failed or exited before it was taken: the bundle then opens DuckDB itself. */
  readonly failed: () => boolean
}

const globals = globalThis as Record<symbol, unknown>

/**
 * Starts the worker (the bin, before the command's bundle loads). Once it has loaded DuckDB it does
 * not keep the process alive: only a request waiting for its reply does.
 */
export const startReadOnlyWorker = (dir: string): void => {
  const file = join(dir, READ_ONLY_WORKER_FILE)
  if (!existsSync(file)) return
  // node:worker_threads (~4 ms to load) is required here, by `audit --verify` alone: the bin runs this module for every line.
  const { Worker } = require("node:worker_threads") as { readonly Worker: typeof WorkerThread }
  const worker = new Worker(file)
  const pending = new Map<number, { readonly resolve: (reply: ReaderReply & { ok: true }) => void; readonly reject: (error: Error) => void }>()
  let next = 0
  let failure: Error | undefined
  const fail = (error: Error) => {
    failure = error
    for (const p of pending.values()) p.reject(error)
    pending.clear()
  }
  worker.on("error", fail)
  worker.on("exit", (code) => fail(new Error(`the read-only DuckDB worker exited (code ${code})`)))
  // Until the worker has loaded DuckDB it keeps the process alive: a process that exits while a thread is still
  // loading the native library aborts (SIGABRT, seen on `audit --verify --since 1d`, a usage error found at once).
  let loaded = false
  worker.on("message", (reply: (ReaderReply & { readonly id: number }) | { readonly ready: true }) => {
    if ("ready" in reply) {
      loaded = true
      if (pending.size === 0) worker.unref()
      return
    }
    const p = pending.get(reply.id)
    if (p === undefined) return
    pending.delete(reply.id)
    if (loaded && pending.size === 0) worker.unref()
    if (reply.ok) p.resolve(reply)
    else p.reject(new Error(reply.message))
  })
  const send: ReadOnlyWorker = (request) =>
    new Promise((resolve, reject) => {
      if (failure !== undefined) return reject(failure)
      const id = next++
      pending.set(id, { resolve, reject })
      worker.ref()
      worker.postMessage({ ...request, id })
    })
  globals[READ_ONLY_WORKER_KEY] = { send, failed: () => failure !== undefined } satisfies Started
}

/** The worker the bin started, once (a second read-only warehouse in the process opens DuckDB itself); none when it failed. */
export const takeReadOnlyWorker = (): ReadOnlyWorker | undefined => {
  const started = globals[READ_ONLY_WORKER_KEY] as Started | undefined
  delete globals[READ_ONLY_WORKER_KEY]
  return started === undefined || started.failed() ? undefined : started.send
}
