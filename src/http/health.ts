import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { encodeJson } from "../render/json"
import { HealthOutput } from "../schemas/serve"
import { ServeApi } from "./api"
import { jsonBytes } from "./respond"

/** GET /api/v1/health: open without a token, touches no file. */
export const HealthRoutes = HttpApiBuilder.group(ServeApi, "health", (handlers) =>
  handlers.handle("health", () => Effect.map(encodeJson(HealthOutput, { status: "ok" as const }), (body) => jsonBytes(body)))
)
