import { NodeSdk } from "@effect/opentelemetry"
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { ConfigProvider, Layer, Logger, LogLevel, Redacted } from "effect"
import type { WarehouseAdapter } from "../../src/schemas/adapters"
import { warehouseHttpClient } from "../../src/services/Warehouse/remote"
import type { RetryPolicy } from "../../src/services/Warehouse/retry"
import type { WarehouseEmulator } from "../support/warehouseEmulator"

/**
 * Tests trust the emulator's CA through an HTTPS agent built with `ca` (NODE_EXTRA_CA_CERTS
 * is read only at process start); production uses NodeHttpClient.layer's default agent.
 */
export const httpClientTrusting = (caPem: string) => warehouseHttpClient({ ca: caPem })

export const PAT = "dapi-personal-0123456789abcdef"
export const CLIENT_ID = "sp-pcli-tests"
export const CLIENT_SECRET = "dose-very-secret-client-credential-42"

/** The one retry layer's policy, fast: what tests wrap warehouse calls in (`retryTransient`). */
export const fastRetry: RetryPolicy = {
  maxRetries: 4,
  baseDelayMillis: 10,
  maxDelayMillis: 50,
  maxRetryAfterMillis: 5_000
}

export const adapterFor = (
  emulator: WarehouseEmulator,
  fields: {
    readonly token?: string
    readonly client_id?: string
    readonly client_secret?: string
    readonly statement_timeout_seconds?: number
  }
): WarehouseAdapter => ({
  type: "warehouse",
  host: emulator.host,
  http_path: emulator.httpPath,
  ...(fields.token === undefined ? {} : { token: Redacted.make(fields.token) }),
  ...(fields.client_id === undefined ? {} : { client_id: fields.client_id }),
  ...(fields.client_secret === undefined ? {} : { client_secret: Redacted.make(fields.client_secret) }),
  ...(fields.statement_timeout_seconds === undefined ? {} : { statement_timeout_seconds: fields.statement_timeout_seconds })
})

/** An environment with only these variables (tests never see the real process env). */
export const envLayer = (env: Record<string, string> = {}) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

/** Every log line at every level, rendered with its annotations. */
export const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ annotations, logLevel, message, cause }) => {
    lines.push(`${logLevel.label} ${JSON.stringify(message)} ${JSON.stringify(Object.fromEntries(annotations))} ${String(cause)}`)
  })
  const layer = Layer.mergeAll(Logger.replace(Logger.defaultLogger, logger), Logger.minimumLogLevel(LogLevel.All))
  return { lines, layer }
}

/** Every finished span with its attributes, events and status, as JSON text. */
export const captureSpans = () => {
  const exporter = new InMemorySpanExporter()
  const layer = NodeSdk.layer(() => ({
    resource: { serviceName: "pcli-test" },
    spanProcessor: new SimpleSpanProcessor(exporter)
  }))
  const dump = () =>
    exporter.getFinishedSpans().map((span) =>
      JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status })
    )
  return { exporter, layer, dump }
}
