import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import css from "./dashboard/dashboard.css" with { type: "text" }
import script from "./dashboard/dashboard.js" with { type: "text" }
import html from "./dashboard/index.html" with { type: "text" }

const file = (body: string, contentType: string) => Effect.succeed(HttpServerResponse.text(body, { contentType, headers: { "cache-control": "no-cache" } }))

/** GET /: the read-only dashboard, three static files bundled into the binary; it reads the JSON routes. */
export const DashboardRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.all([
    router.get("/", file(html, "text/html; charset=utf-8")),
    router.get("/dashboard.css", file(css, "text/css; charset=utf-8")),
    router.get("/dashboard.js", file(script, "text/javascript; charset=utf-8"))
  ])
)
