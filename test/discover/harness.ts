/** Shared wiring for the discover tests: emulator, real layers, captured events/spans/logs. */
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Chunk, Effect, Either, Layer, Logger, Queue, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { type CacheBlock, EltAdapter } from "../../src/schemas/adapters"
import type { DiscoverOutput } from "../../src/schemas/discover"
import { discover } from "../../src/services/Discover/Discover"
import * as DiscoverCache from "../../src/services/DiscoverCache/DiscoverCache"
import * as EltApi from "../../src/services/EltApi/EltApi"
import * as RateBudget from "../../src/services/EltApi/RateBudget"
import * as EventBus from "../../src/services/EventBus/EventBus"
import * as Telemetry from "../../src/services/Telemetry/Telemetry"
import { addTenant, type EltEmulator, makeTenant, startEltEmulator } from "../support/eltEmulator"

export const testApiOptions: EltApi.EltApiOptions = {
  ...EltApi.defaultEltApiOptions,
  initialBackoff: "10 millis",
  maxBackoff: "100 millis",
  requestTimeout: "10 seconds"
}

export const tmpDir = (label: string) => fs.mkdtempSync(path.join(os.tmpdir(), `pcli-${label}-`))

export const servicesLayer = (budgetDir: string, apiOptions: EltApi.EltApiOptions = testApiOptions) =>
  Layer.mergeAll(
    EltApi.layerWith(apiOptions).pipe(Layer.provide(RateBudget.layerAt(budgetDir)), Layer.provide(NodeHttpClient.layerUndici)),
    DiscoverCache.layerWith({ connectTimeoutMillis: 500, commandTimeoutMillis: 1_000 }),
    EventBus.layer
  ).pipe(Layer.provideMerge(NodeContext.layer))

export interface RunResult {
  readonly output: Either.Either<DiscoverOutput, { readonly _tag: string; readonly message: string; readonly code?: string }>
  readonly events: ReadonlyArray<EventBus.PipelineEvent>
  readonly logs: ReadonlyArray<string>
  readonly spans: ReturnType<InMemorySpanExporter["getFinishedSpans"]>
  /** API requests this run caused. */
  readonly apiCalls: number
}

export interface Harness {
  readonly emulator: EltEmulator
  readonly budgetDir: string
  /** Adapter for a tenant (created on first use) with the given cache block. */
  readonly adapter: (opts: { apiKey?: string; destinationId?: string; cache?: CacheBlock | Record<string, unknown>; connectors?: number }) => EltAdapter
  readonly run: (request: { adapter: EltAdapter; noCache?: boolean; emitTo?: string; name?: string }) => Promise<RunResult>
  readonly close: () => Promise<void>
}

export const startHarness = async (options: { latencyMs?: number } = {}): Promise<Harness> => {
  const emulator = await startEltEmulator({ latencyMs: options.latencyMs ?? 0, pageSize: 10 })
  const budgetDir = tmpDir("budget")
  const layer = servicesLayer(budgetDir)

  const adapter: Harness["adapter"] = ({ apiKey = "key-default", destinationId = "dest_main", cache, connectors = 12 }) => {
    if (!emulator.tenants.has(apiKey)) addTenant(emulator, makeTenant(apiKey, destinationId, connectors))
    return Schema.decodeUnknownSync(EltAdapter)({
      type: "elt",
      kind: "discovery",
      api_key: apiKey,
      api_secret: emulator.tenants.get(apiKey)?.apiSecret,
      destination_id: destinationId,
      base_url: emulator.baseUrl,
      ...(cache === undefined ? {} : { cache })
    })
  }

  const run: Harness["run"] = async ({ adapter: elt, noCache = false, emitTo, name = "elt_main" }) => {
    const exporter = new InMemorySpanExporter()
    const logs: Array<string> = []
    const logger = Logger.make(({ logLevel, message, annotations }) => {
      logs.push(`${logLevel.label} ${JSON.stringify(message)} ${JSON.stringify([...annotationsToEntries(annotations)])}`)
    })
    const before = emulator.total()
    const program = Effect.gen(function* () {
      const bus = yield* EventBus.EventBus
      const subscription = yield* bus.subscribe
      const output = yield* Effect.either(discover({ adapterName: name, adapter: elt, noCache, emitTo }))
      const events = Chunk.toReadonlyArray(yield* Queue.takeAll(subscription))
      // Read now: shutting the tracer provider down clears the in-memory exporter.
      return { output, events, spans: [...exporter.getFinishedSpans()] }
    }).pipe(
      Effect.scoped,
      Effect.provide(layer),
      Effect.provide(Telemetry.layerWithProcessor(new SimpleSpanProcessor(exporter))),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.withSpan("test.root")
    )
    const { output, events, spans } = await Effect.runPromise(program)
    return { output, events, logs, spans, apiCalls: emulator.total() - before }
  }

  return {
    emulator,
    budgetDir,
    adapter,
    run,
    close: async () => {
      await emulator.close()
      fs.rmSync(budgetDir, { recursive: true, force: true })
    }
  }
}

const annotationsToEntries = (annotations: ReadonlyMap<string, unknown> | Iterable<[string, unknown]>) =>
  annotations as Iterable<[string, unknown]>

export const eventTypes = (r: RunResult) => r.events.map((e) => e.event_type)

export const outputOf = (r: RunResult): DiscoverOutput => {
  if (Either.isLeft(r.output)) throw new Error(`discover failed: ${r.output.left.message}`)
  return r.output.right
}

/** Changes the upstream content of a tenant: flips a table on the first connector. */
export const changeUpstream = (h: Harness, apiKey = "key-default") => {
  const tenant = h.emulator.tenants.get(apiKey)
  const first = tenant?.connectors[0]
  if (tenant === undefined || first === undefined) throw new Error("no tenant")
  const schemas = tenant.schemas[first.id]
  if (schemas?.schemas.public !== undefined) {
    const audit = schemas.schemas.public.tables.audit_log
    schemas.schemas.public.tables.audit_log = { ...audit, enabled: !(audit?.enabled ?? false) }
  }
}

/** Makes a tenant's envelope exceed 5 MiB of compact JSON (100 connectors × 1,000 long column names). */
export const inflateUpstream = (h: Harness, apiKey: string) => {
  const tenant = h.emulator.tenants.get(apiKey)
  const columns = Object.fromEntries(
    Array.from({ length: 1000 }, (_, i) => [`column_with_a_long_name_${i}`, { enabled: true, hashed: false }])
  )
  for (const schemas of Object.values(tenant?.schemas ?? {})) {
    if (schemas.schemas.public !== undefined) schemas.schemas.public.tables.Orders = { enabled: true, columns }
  }
}
