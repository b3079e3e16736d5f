import { Clock, Context, Effect, Layer, Option, PubSub, type Queue, type Scope } from "effect"

/** One pipeline event as published in-process; `fields` carries the event's own data. */
export interface PipelineEvent {
  readonly event_type: string
  readonly timestamp: string
  readonly fields: Readonly<Record<string, string | number | boolean>>
}

export interface EventBusService {
  readonly publish: (event: PipelineEvent) => Effect.Effect<void>
  /** A subscription that sees every event published after it is taken. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<PipelineEvent>, never, Scope.Scope>
}

export class EventBus extends Context.Tag("pcli/EventBus")<EventBus, EventBusService>() {}

/** Lossy like a broadcast channel: a slow subscriber loses the oldest events, never blocks publishers. */
export const CAPACITY = 256

export const layer = Layer.scoped(
  EventBus,
  Effect.gen(function* () {
    const hub = yield* Effect.acquireRelease(PubSub.sliding<PipelineEvent>(CAPACITY), PubSub.shutdown)
    return EventBus.of({
      publish: (event) => PubSub.publish(hub, event).pipe(Effect.asVoid),
      subscribe: PubSub.subscribe(hub)
    })
  })
)

/**
 * Publishes an event on the bus and records it as a span event on the current span
 * (name = event type, attributes `pcli.<field>`). Without a current span only the bus sees it.
 */
export const emitEvent = (eventType: string, fields: Readonly<Record<string, string | number | boolean>>) =>
  Effect.gen(function* () {
    const bus = yield* EventBus
    const nanos = yield* Clock.currentTimeNanos
    yield* bus.publish({
      event_type: eventType,
      timestamp: new Date(Number(nanos / 1_000_000n)).toISOString(),
      fields
    })
    const span = yield* Effect.option(Effect.currentSpan)
    if (Option.isSome(span)) {
      const attributes = Object.fromEntries(Object.entries(fields).map(([k, v]) => [`pcli.${k}`, v]))
      span.value.event(eventType, nanos, attributes)
    }
  })
