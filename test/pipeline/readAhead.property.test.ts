import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import fc from "fast-check"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { MessageChannel, receiveMessageOnPort } from "node:worker_threads"
import {
  contentHash,
  definitionsShape,
  FileKind,
  fileWork,
  type LoadShape,
  loadShaped,
  ReadAheadLoop,
  readStamped,
  spawnReadAhead,
  startReadAhead,
  visitOrder,
  workIsJson
} from "../../src/services/Project/cache"
import { summariesShape, summaryOf } from "../../src/services/Project/compile"
import { listModels } from "../../src/services/Project/models"

const { CLAIMED_BY_READER, cloneFaithful, LEFT_TO_READER, META, readAheadLoop, STATE_SLOTS, WANTED, WORK_AS_JSON, WORK_CLONED } = ReadAheadLoop

/** The worker's bundle, built by `npm test`'s build. */
const WORKER = resolve(__dirname, "../../dist/pcli-read-ahead.cjs")

const sidecar = (name: string, extra = "") =>
  `name = "${name}"\n${extra}[target]\ncatalog = "warehouse"\nschema = "s"\ntable = "${name}"\n[tags]\nlayer = "staging"\n` +
  `[[tests]]\ntype = "not_null"\ncolumn = "id"\n`

/** File texts of every kind a model directory holds: SQL, sidecars (valid, broken, with ${VAR}, odd shapes), contracts, unicode. */
const fileText = fc.oneof(
  fc.constantFrom(
    "SELECT 1 AS id",
    "SELECT id FROM s.a JOIN s.b USING (id)",
    "WITH x AS (SELECT * FROM s.c) SELECT * FROM x",
    "SELECT 'é€😀' AS label FROM s.d",
    "",
    sidecar("m"),
    sidecar("m", 'depends_on = ["a"]\n'),
    'name = "m"\n[target\n',
    'name = "${ENV_NAME}"\n[target]\nschema = "s"\ntable = "t"\n',
    'name = "m"\nwhen = 1979-05-27T07:32:00Z\n[target]\nschema = "s"\ntable = "t"\n',
    '[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n',
    "[[columns]]\nname = 1\n"
  ),
  fc.string({ unit: "binary", maxLength: 300 })
)

const fileSpec = fc.record({ text: fileText, exists: fc.boolean(), kind: fc.constantFrom(FileKind.sql, FileKind.sidecar, FileKind.contract) })

const writeFiles = (specs: ReadonlyArray<{ text: string; exists: boolean }>) => {
  const dir = mkdtempSync(join(tmpdir(), "pcli-read-ahead-"))
  const paths = specs.map((spec, i) => {
    const path = join(dir, `f${i}`)
    if (spec.exists) writeFileSync(path, spec.text)
    return path
  })
  return { dir, paths }
}

/** What the compile would get reading the file itself: `readStamped`, and `fileWork` of its text. */
const expected = (path: string, kind: FileKind) => {
  const stamped = readStamped(path)
  return stamped === undefined
    ? undefined
    : {
        text: stamped.text,
        stat: { size: stamped.stat.size, mtimeMs: stamped.stat.mtimeMs, ctimeMs: stamped.stat.ctimeMs, ino: stamped.stat.ino },
        key: contentHash(stamped.text),
        work: fileWork(kind, stamped.text)
      }
}

describe("the read-ahead loop", () => {
  it("posts every file it claims once, read as readStamped reads it, with its key and its work", () => {
    fc.assert(
      fc.property(
        fc.array(fileSpec, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.nat(),
        fc.array(fc.double({ noNaN: true }), { minLength: 30, maxLength: 30 }),
        fc.boolean(),
        (specs, chunkFiles, chunkBytes, preclaimed, wantedSeed, shuffle, leaveSql) => {
          const { dir, paths } = writeFiles(specs)
          try {
            const state = new SharedArrayBuffer(STATE_SLOTS * 4)
            const claims = new SharedArrayBuffer(paths.length)
            const taken = new Set(preclaimed.map((n) => n % paths.length))
            for (const index of taken) new Uint8Array(claims)[index] = CLAIMED_BY_READER
            const wanted = wantedSeed % paths.length
            new Int32Array(state)[WANTED] = wanted + 1
            const channel = new MessageChannel()
            const kinds = Uint8Array.from(specs.map((s) => s.kind))
            const order = shuffle[0]! < 0 ? visitOrder(kinds) : Int32Array.from([...paths.keys()].sort((a, b) => shuffle[a]! - shuffle[b]!))
            readAheadLoop(
              // Any order of visits: the compile's (visitOrder) or a shuffle.
              { paths, kinds, order, state, claims, port: channel.port2, chunkFiles, chunkBytes },
              (_, text) => contentHash(text),
              // The worker's own work leaves SQL to the reader (readAheadWorker.ts).
              leaveSql ? (kind, text) => (kind === FileKind.sql ? LEFT_TO_READER : fileWork(kind, text)) : fileWork,
              workIsJson
            )
            const seen = new Map<number, unknown>()
            let messages = 0
            for (let m = receiveMessageOnPort(channel.port1); m !== undefined; m = receiveMessageOnPort(channel.port1)) {
              messages++
              const { meta, bytes, keys, work } = m.message as ReadAheadLoop.FilesMessage
              const buffer = Buffer.from(bytes)
              const rows = meta.length / META
              for (let row = 0; row < rows; row++) {
                const at = row * META
                const index = meta[at]!
                expect(seen.has(index)).toBe(false)
                if (index === wanted) expect(row).toBe(rows - 1) // the chunk holding the wanted file ends with it
                seen.set(
                  index,
                  meta[at + 1] === 1
                    ? {
                        text: buffer.toString("utf8", meta[at + 2], meta[at + 2]! + meta[at + 3]!),
                        stat: { size: meta[at + 4], mtimeMs: meta[at + 5], ctimeMs: meta[at + 6], ino: meta[at + 7] },
                        key: keys[row],
                        work: meta[at + 8] === WORK_CLONED ? work[row] : meta[at + 8] === WORK_AS_JSON ? JSON.parse(work[row] as string) : "not done"
                      }
                    : undefined
                )
              }
            }
            channel.port1.close()
            expect(new Int32Array(state)[0]).toBe(messages)
            for (let index = 0; index < paths.length; index++) {
              if (taken.has(index)) {
                expect(seen.has(index)).toBe(false)
                continue
              }
              expect(seen.has(index)).toBe(true)
              const want = expected(paths[index]!, specs[index]!.kind)
              const got = seen.get(index) as { text: string; stat: unknown; work: unknown } | undefined
              if (want === undefined) expect(got).toBeUndefined()
              else if (got!.work === "not done") {
                expect({ ...got, work: undefined }).toStrictEqual({ ...want, work: undefined })
                // Done unless left to the reader, or its result would not survive the trip.
                if (!(leaveSql && specs[index]!.kind === FileKind.sql)) expect(cloneFaithful(want.work)).toBe(false)
              } else {
                expect(leaveSql && specs[index]!.kind === FileKind.sql).toBe(false)
                expect(got).toStrictEqual(want)
              }
            }
          } finally {
            rmSync(dir, { recursive: true, force: true })
          }
        }
      ),
      { numRuns: 150 }
    )
  })
})

describe("startReadAhead", () => {
  it("the worker's bundle is built", () => {
    expect(existsSync(WORKER)).toBe(true)
  })

  it("gives every file as this thread would read it, whichever thread reads it", () => {
    fc.assert(
      fc.property(
        fc.array(fileSpec, { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        fc.array(fc.integer({ min: -1, max: 2 }), { maxLength: 80 }),
        fc.boolean(),
        (specs, readerClaims, steps, early) => {
          const { dir, paths } = writeFiles(specs)
          // Early: the worker was started before its files were known (`pcli compile` without an index) and is handed them now.
          const ahead = startReadAhead(paths, Uint8Array.from(specs.map((s) => s.kind)), {
            ...(early ? { spawned: spawnReadAhead(WORKER) } : {}),
            workerFile: WORKER,
            chunkFiles: 4,
            chunkBytes: 256,
            readerClaims,
            patienceMs: 20_000
          })
          try {
            expect(ahead).toBeDefined()
            // Mostly forward, sometimes a file again or one skipped (the compile takes each once, in order).
            let index = 0
            const order = [...steps.map((step) => (index = Math.max(0, Math.min(paths.length - 1, index + step)))), ...paths.keys()]
            const fromWorker = new Set<number>()
            for (const i of order) {
              const got = ahead!.take(i)
              if (got === undefined) continue
              expect(fromWorker.has(i)).toBe(false) // taken once
              fromWorker.add(i)
              const want = expected(paths[i]!, specs[i]!.kind)!
              // The worker keys every file; it decodes sidecars and contracts and leaves SQL's tables to this thread.
              expect({ text: got.text, stat: { size: got.stat.size, mtimeMs: got.stat.mtimeMs, ctimeMs: got.stat.ctimeMs, ino: got.stat.ino }, key: got.key }).toStrictEqual({
                text: want.text,
                stat: want.stat,
                key: want.key
              })
              if (specs[i]!.kind === FileKind.sql) expect(got.worked).toBe(false)
              else if (got.worked) expect(got.work).toStrictEqual(want.work)
              else expect(cloneFaithful(want.work)).toBe(false)
            }
            // A worker this thread never reads beside gives it every readable file.
            if (!readerClaims) for (let i = 0; i < paths.length; i++) expect(fromWorker.has(i)).toBe(readStamped(paths[i]!) !== undefined)
          } finally {
            ahead?.close()
            rmSync(dir, { recursive: true, force: true })
          }
        }
      ),
      { numRuns: 25 }
    )
  })
})

describe("spawnReadAhead", () => {
  it("is adopted once; a released or adopted one leaves the next read-ahead to start its own", () => {
    const dir = mkdtempSync(join(tmpdir(), "pcli-read-ahead-spawn-"))
    try {
      const paths = [0, 1].map((i) => join(dir, `m${i}.sql`))
      for (const path of paths) writeFileSync(path, "SELECT 1 AS id")
      const kinds = Uint8Array.from([FileKind.sql, FileKind.sql])
      const released = spawnReadAhead(WORKER)!
      released.release()
      expect(released.adopt()).toBeUndefined()
      const adopted = spawnReadAhead(WORKER)!
      const first = startReadAhead(paths, kinds, { spawned: adopted, workerFile: WORKER, readerClaims: false })
      expect(adopted.adopt()).toBeUndefined()
      adopted.release() // adopted: the read-ahead's own, not stopped by this
      for (const spawned of [released, adopted]) {
        const ahead = spawned === adopted ? first : startReadAhead(paths, kinds, { spawned, workerFile: WORKER, readerClaims: false })
        try {
          expect(ahead).toBeDefined()
          // Every file through the worker (this thread reads none itself).
          for (let i = 0; i < paths.length; i++) expect(ahead!.take(i)?.text).toBe("SELECT 1 AS id")
        } finally {
          ahead?.close()
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("the worker's save", () => {
  it("is left to this thread, without waiting out its patience, when the worker fails", () => {
    const dir = mkdtempSync(join(tmpdir(), "pcli-read-ahead-fail-"))
    try {
      const paths = [0, 1, 2].map((i) => join(dir, `m${i}.toml`))
      for (const path of paths) writeFileSync(path, 'name = "m"\n')
      // A chunk of -1 bytes makes the worker's loop throw at its first file.
      const ahead = startReadAhead(paths, Uint8Array.from([FileKind.sidecar, FileKind.sidecar, FileKind.sidecar]), {
        workerFile: WORKER,
        chunkBytes: -1,
        readerClaims: false,
        patienceMs: 50,
        savePatienceMs: 30_000
      })
      expect(ahead).toBeDefined()
      const asked = ahead!.saveShards([{ modelsDir: dir, build: "test", shards: [], last: true }])
      // Asked before the worker failed: the worker says so ("timedOut": nobody did); asked after: it is not taken at all.
      expect(asked ? ahead!.awaitSaved() : "failed").toBe("failed")
      expect(ahead!.take(0)).toBeUndefined()
      ahead!.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

/** A shard's header but its digest, and its entries in key order (a load of summaries lists the sidecars it kept as JSON last). */
const shardContents = (files: ReadonlyArray<ReadonlyArray<string>>) =>
  files.map(([file, text]) => {
    const newline = text!.indexOf("\n")
    const { digest: _, ...header } = JSON.parse(text!.slice(0, newline)) as Record<string, unknown>
    const body = JSON.parse(text!.slice(newline + 1)) as Record<string, unknown>
    const byKey = (entries: unknown) => [...(entries as Array<[string, unknown]>)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return [file, header, body["files"], byKey(body["sql"]), byKey(body["sidecars"]), byKey(body["contracts"])]
  })

describe("loadWithCache with a read-ahead worker", () => {
  const model = fc.record({
    sql: fc.constantFrom("SELECT 1 AS id", "SELECT id FROM s.m0", "SELECT * FROM s.m1 JOIN s.m2 USING (id)"),
    sidecar: fc.constantFrom("plain", "broken", "env", "date", "depends"),
    contract: fc.constantFrom("none", "valid", "invalid")
  })
  const sidecarText = (name: string, kind: string) =>
    kind === "broken"
      ? `name = "${name}"\n[target\n`
      : kind === "env"
        ? sidecar(name).replace('schema = "s"', 'schema = "${SCHEMA}"')
        : kind === "date"
          ? sidecar(name, "retired = 2020-01-01\n")
          : kind === "depends"
            ? sidecar(name, 'depends_on = ["m0"]\n')
            : sidecar(name)

  /** Loads the models with no worker, with every file through one, and shared with one: all three must agree, shards included. */
  const loadsAgree = async (models: ReadonlyArray<{ sql: string; sidecar: string; contract: string }>) => {
          const root = mkdtempSync(join(tmpdir(), "pcli-read-ahead-load-"))
          const modelsDir = join(root, "models")
          mkdirSync(modelsDir)
          models.forEach((m, i) => {
            const name = `m${i}`
            writeFileSync(join(modelsDir, `${name}.sql`), m.sql)
            writeFileSync(join(modelsDir, `${name}.toml`), sidecarText(name, m.sidecar))
            if (m.contract !== "none") {
              writeFileSync(join(modelsDir, `${name}.contract.toml`), m.contract === "valid" ? '[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n' : "[[columns]]\nname = 1\n")
            }
          })
          // Every stat trusted at once (a margin in the future), so the stamps the load records are compared too;
          // no cache to start from, and the shards the load writes compared byte for byte.
          const options = { modelsDir, env: { SCHEMA: "s" }, racyMarginMs: -60_000 }
          const cacheDir = join(root, ".pcli", "compile-cache")
          const shardFiles = () => (existsSync(cacheDir) ? readdirSync(cacheDir).sort().map((f) => [f, readFileSync(join(cacheDir, f), "latin1")]) : [])
          // "worker": every file through the worker; "shared": this thread reads what the worker has not reached.
          const load = <M>(readAhead: "none" | "worker" | "shared", shape: LoadShape<M>) =>
            Effect.runPromise(
              Effect.gen(function* () {
                rmSync(join(root, ".pcli"), { recursive: true, force: true })
                const listing = yield* listModels(options)
                const loaded = yield* loadShaped(
                  readAhead === "none" ? { ...options, readAhead: { minFiles: Infinity } } : { ...options, readAhead: { minFiles: 0, workerFile: WORKER, readerClaims: readAhead === "shared" } },
                  listing,
                  "all",
                  shape
                )
                return {
                  definitions: Either.mapLeft(loaded.definitions, (e) => JSON.stringify(e)),
                  parsed: Either.map(Either.mapLeft(loaded.parsed, (e) => JSON.stringify(e)), (m) => [...m]),
                  use: loaded.use,
                  stamps: listing.names.flatMap((name) => [".sql", ".toml", ".contract.toml"].map((suffix) => loaded.stampOf(name, suffix))),
                  shards: Either.isRight(loaded.definitions) ? (yield* yield* loaded.save, shardFiles()) : []
                }
              }).pipe(Effect.provide(NodeContext.layer))
            )
          try {
            const plain = await load("none", definitionsShape)
            expect(await load("worker", definitionsShape)).toStrictEqual(plain)
            expect(await load("shared", definitionsShape)).toStrictEqual(plain)
            // Loaded as summaries (`pcli compile`'s), the worker's sidecars unparsed: each model's summary, and the same shards' content.
            const summaries = { ...plain, definitions: Either.map(plain.definitions, (ds) => ds.map(summaryOf)), shards: shardContents(plain.shards) }
            for (const readAhead of ["none", "worker", "shared"] as const) {
              const loaded = await load(readAhead, summariesShape)
              expect({ ...loaded, shards: shardContents(loaded.shards) }).toStrictEqual(summaries)
            }
            return plain
          } finally {
            rmSync(root, { recursive: true, force: true })
          }
  }

  it.effect("loads exactly what the load without one loads", () =>
    Effect.promise(() => fc.assert(fc.asyncProperty(fc.array(model, { minLength: 1, maxLength: 40 }), async (models) => void (await loadsAgree(models))), { numRuns: 20 }))
  )

  it.effect("writes the shards the load without one writes, from what the worker decoded", () => {
    // Projects that load (so shards are written and compared every time), ${VAR} sidecars included.
    const loading = fc.record({
      sql: model.map((m) => m.sql),
      sidecar: fc.constantFrom("plain", "env", "depends"),
      contract: fc.constantFrom("none", "valid")
    })
    return Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.array(loading, { minLength: 1, maxLength: 40 }), async (models) => {
          const plain = await loadsAgree(models)
          expect(plain.shards.length).toBeGreaterThan(0)
        }),
        { numRuns: 15 }
      )
    )
  })
})
