import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
// dagre's own browser build, from the package (no CDN): it lays out the lineage graph.
// @ts-expect-error a plain script read as text; it has no type declarations of its own
import dagre from "../../node_modules/@dagrejs/dagre/dist/dagre.min.js" with { type: "text" }
import css from "./dashboard/dashboard.css" with { type: "text" }
import favicon from "./dashboard/favicon.svg" with { type: "text" }
import html from "./dashboard/index.html" with { type: "text" }
import app from "./dashboard/js/app.js" with { type: "text" }
import core from "./dashboard/js/core.js" with { type: "text" }
import govern from "./dashboard/js/govern.js" with { type: "text" }
import graph from "./dashboard/js/graph.js" with { type: "text" }
import views from "./dashboard/js/views.js" with { type: "text" }

const JS = "text/javascript; charset=utf-8"

/** Every file of the dashboard, by path; all bundled into the binary, none fetched from elsewhere. */
const FILES: ReadonlyArray<readonly [string, string, string]> = [
  ["/", html as string, "text/html; charset=utf-8"],
  ["/dashboard.css", css as string, "text/css; charset=utf-8"],
  ["/favicon.svg", favicon as string, "image/svg+xml"],
  ["/favicon.ico", favicon as string, "image/svg+xml"],
  ["/vendor/dagre.min.js", dagre as string, JS],
  ["/js/core.js", core as string, JS],
  ["/js/views.js", views as string, JS],
  ["/js/graph.js", graph as string, JS],
  ["/js/govern.js", govern as string, JS],
  ["/js/app.js", app as string, JS]
]

export const STATIC_PATHS: ReadonlyArray<string> = FILES.map(([path]) => path)

const file = (body: string, contentType: string) => Effect.succeed(HttpServerResponse.text(body, { contentType, headers: { "cache-control": "no-cache" } }))

/** GET /: the read-only dashboard, static files bundled into the binary; it reads the JSON routes. */
export const DashboardRoutes = HttpApiBuilder.Router.use((router) => Effect.all(FILES.map(([path, body, type]) => router.get(path as "/", file(body, type)))))
