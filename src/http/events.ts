import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import { serveEvents } from "../commands/serve"
import { ServeApi } from "./api"

const encoder = new TextEncoder()

/** GET /api/v1/events: Server-Sent Events, one `change` per burst of store or model changes. */
export const EventRoutes = HttpApiBuilder.group(ServeApi, "events", (handlers) =>
  handlers.handle("events", () =>
    Effect.map(serveEvents, (frames) =>
      HttpServerResponse.stream(Stream.map(frames, (f) => encoder.encode(f)), {
        contentType: "text/event-stream",
        // `connection: close`: when the stream ends (shutdown) the socket goes with it, so the server's close never waits on a kept-alive one.
        headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "close" }
      })
    )
  )
)
