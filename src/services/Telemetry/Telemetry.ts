import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Option } from "effect"

/** Tracer layer over the given span processor (the in-memory exporter in tests, OTLP in production). */
export const layerWithProcessor = (spanProcessor: SpanProcessor, serviceName = "pcli") =>
  Layer.unwrapEffect(
    Effect.promise(() => import("@effect/opentelemetry/NodeSdk")).pipe(
      Effect.map((NodeSdk) => NodeSdk.layer(() => ({ resource: { serviceName }, spanProcessor })))
    )
  )

/**
 * OTLP/HTTP trace export, on only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (read through
 * Config); the exporter reads the rest of the standard `OTEL_*` variables itself. The
 * OpenTelemetry packages load lazily, so a run without the variable pays nothing for them, nor
 * for the spans themselves.
 */
const endpoint = Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(Effect.orElseSucceed(() => Option.none<string>()))

/** Whether spans are exported anywhere (`OTEL_EXPORTER_OTLP_ENDPOINT` set): without, a span reaches no one. */
export const exporting: Effect.Effect<boolean> = Effect.map(endpoint, Option.isSome)

export const layerFromEnv: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.gen(function* () {
    // Nothing exports them: spans are not made at all (@effect/sql alone opens one per statement).
    if (!(yield* exporting)) return Layer.setTracerEnabled(false)
    const [{ OTLPTraceExporter }, { BatchSpanProcessor }] = yield* Effect.promise(() =>
      Promise.all([import("@opentelemetry/exporter-trace-otlp-http"), import("@opentelemetry/sdk-trace-base")])
    )
    return layerWithProcessor(new BatchSpanProcessor(new OTLPTraceExporter()))
  })
)
