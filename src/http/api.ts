import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Option, Schema, SchemaAST } from "effect"
import { ErrorBody } from "../render/json"
import { AuditListOutput, AuditScorecardOutput, AuditVerifyOutput, CustodyOutput } from "../schemas/audit"
import { BriefOutput } from "../schemas/brief"
import { PolicyShowOutput } from "../schemas/policy-output"
import { ProductJournalOutput, ProductListOutput, ProductStatusOutput } from "../schemas/products"
import { HistoryListOutput, HistoryRunOutput } from "../schemas/history"
import { LsOutput, ModelLineageOutput } from "../schemas/inspect"
import { ModelShowOutput } from "../schemas/lineage"
import { PlanListOutput } from "../schemas/planListOutput"
import { ReviewOutput } from "../schemas/reviewOutput"
import { ReviewQueueOutput } from "../schemas/reviewQueueOutput"
import { ReviewStatusOutput } from "../schemas/reviewStatusOutput"
import { PolicyCheckOutput } from "../schemas/policy-output"
import { HealthOutput } from "../schemas/serve"

// The routes of `pcli serve` as one HttpApi: the router and /api/v1/openapi.json come from this.
// Handlers answer with the CLI's own bytes (render/json.ts); these schemas document the shapes.

// A repeated parameter decodes as an array, so the handler can refuse it with our own 400 body
// (`singleParams`) rather than the framework's decode error.
const QueryValue = Schema.Union(Schema.String, Schema.Array(Schema.String))
const Query = (fields: ReadonlyArray<string>) =>
  Schema.Struct(Object.fromEntries(fields.map((f) => [f, Schema.optional(QueryValue)])) as Record<string, Schema.optional<typeof QueryValue>>)

const Name = Schema.Struct({ name: Schema.String })
const Subject = Schema.Struct({ subject: Schema.String })
const Id = Schema.Struct({ id: Schema.String })
const Model = Schema.Struct({ model: Schema.String })

const Failure = ErrorBody.annotations({ identifier: "Error" })

export const PolicyGroup = HttpApiGroup.make("policy")
  .add(HttpApiEndpoint.get("show", "/policy").addSuccess(PolicyShowOutput).addError(Failure, { status: 409 }).addError(Failure, { status: 503 }))
  .add(HttpApiEndpoint.get("check", "/policy/check").setUrlParams(Query(["principal", "capability", "model"])).addSuccess(PolicyCheckOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }).addError(Failure, { status: 409 }))

export const RunsGroup = HttpApiGroup.make("runs")
  .add(HttpApiEndpoint.get("list", "/runs").setUrlParams(Query(["last", "model"])).addSuccess(HistoryListOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("run", "/runs/:id").setPath(Id).addSuccess(HistoryRunOutput).addError(Failure, { status: 404 }).addError(Failure, { status: 409 }))

export const ModelsGroup = HttpApiGroup.make("models")
  .add(HttpApiEndpoint.get("list", "/models").addSuccess(LsOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("show", "/models/:model").setPath(Model).addSuccess(ModelShowOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }))
  .add(HttpApiEndpoint.get("lineage", "/lineage/:model").setPath(Model).addSuccess(ModelLineageOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }))

export const PlansGroup = HttpApiGroup.make("plans")
  .add(HttpApiEndpoint.get("list", "/plans").addSuccess(PlanListOutput).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("review", "/plans/:id").setPath(Id).addSuccess(ReviewOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }))
  .add(HttpApiEndpoint.get("status", "/plans/:id/status").setPath(Id).addSuccess(ReviewStatusOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }))
  .add(HttpApiEndpoint.get("queue", "/review-queue").addSuccess(ReviewQueueOutput).addError(Failure, { status: 409 }))

/** Server-Sent Events: `ready` on connect, then one `change` per burst of store or model changes, each `{"head_seq": N}`. */
export const EventsGroup = HttpApiGroup.make("events").add(
  HttpApiEndpoint.get("events", "/events").addSuccess(Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/event-stream" })))
)

export const AuditGroup = HttpApiGroup.make("audit")
  .add(HttpApiEndpoint.get("list", "/audit").setUrlParams(Query(["product", "actor", "since", "model", "effect", "limit", "cursor"])).addSuccess(AuditListOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("verify", "/audit/verify").addSuccess(AuditVerifyOutput).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("scorecard", "/audit/scorecard").setUrlParams(Query(["by", "window"])).addSuccess(AuditScorecardOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("custody", "/custody/:subject").setPath(Subject).addSuccess(CustodyOutput).addError(Failure, { status: 404 }).addError(Failure, { status: 409 }).addError(Failure, { status: 501 }))

export const BriefGroup = HttpApiGroup.make("brief").add(HttpApiEndpoint.get("brief", "/brief").setUrlParams(Query(["since"])).addSuccess(BriefOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 409 }).addError(Failure, { status: 501 }))

export const ProductsGroup = HttpApiGroup.make("products")
  .add(HttpApiEndpoint.get("list", "/products").addSuccess(ProductListOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("status", "/products/:name").setPath(Name).addSuccess(ProductStatusOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }).addError(Failure, { status: 409 }))
  .add(HttpApiEndpoint.get("journal", "/products/:name/journal").setPath(Name).addSuccess(ProductJournalOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }).addError(Failure, { status: 409 }))

export const HealthGroup = HttpApiGroup.make("health").add(HttpApiEndpoint.get("health", "/health").addSuccess(HealthOutput))

export const ServeApi = HttpApi.make("pcli")
  .add(PolicyGroup)
  .add(RunsGroup)
  .add(ModelsGroup)
  .add(PlansGroup)
  .add(EventsGroup)
  .add(AuditGroup)
  .add(BriefGroup)
  .add(ProductsGroup)
  .add(HealthGroup)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "pcli serve")
  .annotate(OpenApi.Description, "Read-only: each route's body is byte-equal to the matching `pcli … --output json`")

/** A route's path as a pattern (`:name` matches one segment) and the query parameters it takes. */
export interface RouteShape {
  readonly pattern: RegExp
  readonly params: ReadonlySet<string>
}

const paramNames = (schema: Option.Option<Schema.Schema.Any>) =>
  Option.match(schema, {
    onNone: () => new Set<string>(),
    onSome: (s) => {
      const ast = SchemaAST.isTransformation(s.ast) ? s.ast.to : s.ast
      return new Set(SchemaAST.isTypeLiteral(ast) ? ast.propertySignatures.map((p) => String(p.name)) : [])
    }
  })

/** Every API route's shape, read from ServeApi itself, so an unknown query parameter is refused on each. */
export const ROUTES: ReadonlyArray<RouteShape> = (() => {
  const shapes: Array<RouteShape> = []
  HttpApi.reflect(ServeApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const pattern = new RegExp(`^${endpoint.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[a-zA-Z]+/g, "[^/]+")}$`)
      shapes.push({ pattern, params: paramNames(endpoint.urlParamsSchema as unknown as Option.Option<Schema.Schema.Any>) })
    }
  })
  return shapes
})()
