import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ErrorBody } from "../render/json"
import { AuditListOutput, AuditScorecardOutput, CustodyOutput } from "../schemas/audit"
import { BriefOutput } from "../schemas/brief"
import { PolicyShowOutput } from "../schemas/policy-output"
import { ProductJournalOutput, ProductListOutput, ProductStatusOutput } from "../schemas/products"
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

const Failure = ErrorBody.annotations({ identifier: "Error" })

export const PolicyGroup = HttpApiGroup.make("policy").add(HttpApiEndpoint.get("show", "/policy").addSuccess(PolicyShowOutput).addError(Failure, { status: 409 }).addError(Failure, { status: 503 }))

export const AuditGroup = HttpApiGroup.make("audit")
  .add(HttpApiEndpoint.get("list", "/audit").setUrlParams(Query(["product", "actor", "since"])).addSuccess(AuditListOutput).addError(Failure, { status: 400 }).addError(Failure, { status: 404 }).addError(Failure, { status: 409 }))
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
  .add(AuditGroup)
  .add(BriefGroup)
  .add(ProductsGroup)
  .add(HealthGroup)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "pcli serve")
  .annotate(OpenApi.Description, "Read-only: each route's body is byte-equal to the matching `pcli … --output json`")
