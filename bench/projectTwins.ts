/**
 * What each fast twin of services/Project saves against its plain reference, measured in the same
 * run on one generated project (10,000 models by default): the SQL reader against DuckDB's parser,
 * the serialized-AST scan against the whole-AST walk, the sidecar fast decoder against Schema
 * decoding, the numbered graph against the plain one, the compile index against the compile
 * through the cache alone, and the read-ahead worker against reading on one thread.
 * A twin that saves under 10 % here is a candidate for removal (the plain reference stays).
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Schema } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as Toml from "smol-toml"
import { encodeJson } from "../src/render/json"
import { ModelContract, ModelSidecar } from "../src/schemas/model"
import { CompileOutput } from "../src/schemas/pipeline"
import {
  compileListingSummaries,
  compileRendered,
  type CompiledProject,
  depths,
  depthsIndexed,
  kahnOrder,
  kahnOrderIndexed,
  loadAndCompile,
  reachableCountsIndexed,
  reachableCountsPlain
} from "../src/services/Project/compile"
import { listModels, loadModels } from "../src/services/Project/models"
import { fastDecodeContract, fastDecodeSidecar } from "../src/services/Project/sidecarFast"
import { fastToml } from "../src/services/Project/tomlFast"
import {
  fastReferencesOf,
  parseableSql,
  parseReferences,
  parseReferencesWithDuckDb,
  referencesOf,
  type SerializedStatement,
  serializeBatch
} from "../src/services/Project/sql"
import { compileOutput } from "../src/services/Runner/output"
import { acquireDuckDbInstance } from "../src/services/Warehouse/duckdbInstance"
import { generateProject, median, printTable } from "./support"

// This bench is bundled as ESM: the read-ahead loads node:worker_threads with `require`, as the CommonJS bin does.
;(globalThis as { require?: NodeJS.Require }).require ??= createRequire(import.meta.url)

const run = <A, E>(effect: Effect.Effect<A, E, NodeContext.NodeContext>) =>
  Effect.runPromise(Effect.provide(effect, NodeContext.layer) as Effect.Effect<A, E>)

const runs = Math.max(1, Number(process.env["BENCH_RUNS"] ?? "5"))
const size = Number(process.env["BENCH_SIZE"] ?? "10000")
/** Which pairs to measure (default all): sql, ast, sidecar, graph, index, readAhead. */
const only = process.env["BENCH_TWINS"]?.split(",")
const measures = (pair: string) => only === undefined || only.includes(pair)

/** Median wall times of `runs` calls of each, alternated (the machine's load drifts), after one call of each to warm up. */
const timedPair = async (twin: () => unknown, reference: () => unknown): Promise<{ twinMs: number; referenceMs: number }> => {
  await twin()
  await reference()
  const twins: Array<number> = []
  const references: Array<number> = []
  for (let k = 0; k < runs; k++) {
    for (const [f, samples] of [[twin, twins], [reference, references]] as const) {
      const t0 = performance.now()
      await f()
      samples.push(performance.now() - t0)
    }
  }
  return { twinMs: median(twins), referenceMs: median(references) }
}

interface Pair {
  readonly twin: string
  readonly reference: string
  readonly twinMs: number
  readonly referenceMs: number
}

/** The `json_serialize_sql` texts of every SQL text (as the DuckDB path gets them). */
const serializeAll = (sqls: ReadonlyArray<string>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const instance = yield* acquireDuckDbInstance(":memory:")
      const connection = yield* Effect.acquireRelease(Effect.promise(() => instance.connect()), (c) => Effect.sync(() => c.closeSync()))
      return yield* Effect.promise(() => serializeBatch(connection, sqls))
    })
  )

const schemaDecode = { onExcessProperty: "error", errors: "all" } as const

const render = (project: CompiledProject<unknown>) => encodeJson(CompileOutput, compileOutput(project, "models", { mask: undefined, classifications: undefined }))

/** The compile cache and index beside a models directory: removed for a cold compile. */
const dropCache = (modelsDir: string) => fs.rmSync(path.join(path.dirname(modelsDir), ".pcli"), { recursive: true, force: true })

const main = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-bench-twins-"))
  const measured: Array<Pair> = []
  const pairs = {
    push: (p: Pair) => {
      measured.push(p)
      console.error(`  ${p.twin} ${p.twinMs.toFixed(1)} ms; ${p.reference} ${p.referenceMs.toFixed(1)} ms`)
    }
  }
  try {
    const modelsDir = generateProject(root, size)
    const definitions = await run(loadModels({ modelsDir, env: {} }))
    const items = definitions.map((d) => ({ model: d.name, sql: parseableSql(d.sql), file: d.sqlPath }))
    const options = { modelsDir, env: {} }

    if (measures("sql")) {
      // The SQL reader: the front (fast reader, DuckDB for what it leaves) against DuckDB for every text.
      pairs.push({
        twin: "SQL reader (parseReferences: fast reader, DuckDB for the rest)",
        reference: "DuckDB's parser for every model (parseReferencesWithDuckDb)",
        ...(await timedPair(
          () => run(parseReferences(items)),
          () => run(parseReferencesWithDuckDb(items))
        ))
      })
    }

    if (measures("ast")) {
      // The serialized-AST scan (the DuckDB path's reading of its own output) against the whole-AST walk.
      const serialized: ReadonlyArray<SerializedStatement> = await run(serializeAll(items.map((i) => i.sql)))
      pairs.push({
        twin: "AST scan (fastReferencesOf)",
        reference: "whole-AST walk (referencesOf)",
        ...(await timedPair(
          () => run(Effect.forEach(serialized, (s, i) => fastReferencesOf(s.json, s.statementCount, items[i]!.model))),
          () => run(Effect.forEach(serialized, (s, i) => referencesOf(s.json, items[i]!.model)))
        ))
      })
    }

    if (measures("sidecar")) {
      // Sidecars and contracts: TOML parsed either way, then the fast decoder or Schema's.
      const texts = definitions.flatMap((d) => [
        { text: fs.readFileSync(d.sidecarPath, "utf8"), contract: false },
        ...(d.contractPath === undefined ? [] : [{ text: fs.readFileSync(d.contractPath, "utf8"), contract: true }])
      ])
      const sidecarSchema = Schema.decodeUnknownEither(ModelSidecar, schemaDecode)
      const contractSchema = Schema.decodeUnknownEither(ModelContract, schemaDecode)
      pairs.push({
        twin: "TOML subset reader (fastToml, smol-toml for the rest)",
        reference: "smol-toml",
        ...(await timedPair(
          () => texts.map(({ text }) => fastToml(text) ?? Toml.parse(text)),
          () => texts.map(({ text }) => Toml.parse(text))
        ))
      })
      pairs.push({
        twin: "sidecar fast decoder (TOML + sidecarFast)",
        reference: "TOML + Schema decoding",
        ...(await timedPair(
          () => texts.map(({ text, contract }) => (contract ? fastDecodeContract : fastDecodeSidecar)(Toml.parse(text))),
          () => texts.map(({ text, contract }) => (contract ? contractSchema : sidecarSchema)(Toml.parse(text)))
        ))
      })
    }

    if (measures("graph")) {
      // The graph: order, depths and downstream counts, numbered against by name.
      const project = await run(loadAndCompile({ modelsDir, env: {}, cache: false }))
      const names = [...project.models.keys()].sort()
      const number = new Map(names.map((n, i) => [n, i]))
      const upstream = new Map(names.map((n) => [n, project.models.get(n)!.upstream]))
      const downstream = project.downstream
      const up = names.map((n) => upstream.get(n)!.map((m) => number.get(m)!))
      const down = names.map((n) => (downstream.get(n) ?? []).map((m) => number.get(m)!))
      pairs.push({
        twin: "numbered graph (graphIndexed)",
        reference: "graph by name (graph.ts)",
        ...(await timedPair(
          () => {
            const { order } = kahnOrderIndexed(up, down)
            return [depthsIndexed(order, up), reachableCountsIndexed(order, down)]
          },
          () => {
            const { order } = kahnOrder(names, upstream, downstream)
            return [depths(order, upstream), reachableCountsPlain(order, downstream)]
          }
        ))
      })
    }

    if (measures("index")) {
      // `pcli compile`, warm, nothing changed: through the compile index against the compile through the cache alone.
      await run(compileRendered(options, "models", render))
      pairs.push({
        twin: "compile index, warm, no change (compileRendered)",
        reference: "compile through the cache, warm (compileListingSummaries + render)",
        ...(await timedPair(
          () => run(compileRendered(options, "models", render)),
          () => run(Effect.flatMap(Effect.flatMap(listModels(options), (listing) => compileListingSummaries(options, listing)), render))
        ))
      })
    }

    if (measures("readAhead")) {
      // A cold compile (cache dropped each time): files read and decoded by the read-ahead worker too, or on this thread alone.
      const workerFile = path.resolve("dist/pcli-read-ahead.cjs")
      if (!fs.existsSync(workerFile)) throw new Error(`${workerFile} is missing: npm run build first`)
      const cold = (readAhead: { workerFile: string; minFiles: number }) => () => {
        dropCache(modelsDir)
        return run(loadAndCompile({ ...options, readAhead }))
      }
      pairs.push({
        twin: "read-ahead worker, cold compile",
        reference: "one thread, cold compile",
        ...(await timedPair(
          cold({ workerFile, minFiles: 0 }),
          cold({ workerFile, minFiles: Number.POSITIVE_INFINITY })
        ))
      })
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
  console.log(`services/Project's fast twins against their references, ${size} models, medians of ${runs} runs (each after a warm-up run).`)
  // The read-ahead worker gains only with a core to spare: how busy the machine was says whether it had one.
  console.log(`this machine: ${os.availableParallelism()} cores, load average ${os.loadavg()[0]!.toFixed(1)} (1 min) at the end.`)
  printTable(
    ["twin", "ms", "reference", "ms", "twin / reference", "saves"],
    measured.map((p) => [
      p.twin,
      p.twinMs.toFixed(1),
      p.reference,
      p.referenceMs.toFixed(1),
      `${(p.twinMs / p.referenceMs).toFixed(2)}x`,
      `${(100 * (1 - p.twinMs / p.referenceMs)).toFixed(0)} %`
    ])
  )
}

void main()
