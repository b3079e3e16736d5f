import { McpServer } from "@effect/ai/McpServer"
import { CallToolResult, InvalidParams, Tool, ToolAnnotations } from "@effect/ai/McpSchema"
import { Cause, Effect, JSONSchema, Option, ParseResult, Schema, SchemaAST as AST } from "effect"
import { describeCause, errorBody } from "../render/errors"
import { jsonText } from "../render/json"

/** One MCP tool: its typed arguments, the command it calls, and the Schema of that command's output. */
export interface ToolSpec<I, A, R> {
  readonly name: string
  readonly description: string
  /** Read tools never write; the two write tools are gated by policy. */
  readonly readOnly: boolean
  readonly input: Schema.Schema<I, any, never>
  readonly output: Schema.Schema<A, any, never>
  readonly run: (args: I) => Effect.Effect<A, unknown, R>
}

export type AnyToolSpec<R> = ToolSpec<any, any, R>

/** The services a list of tools needs between them. */
type RequirementsOf<S> = S extends ToolSpec<any, any, infer R> ? R : never
export type ToolRequirements<T extends ReadonlyArray<AnyToolSpec<any>>> = RequirementsOf<T[number]>

/** Keeps each tool's argument and output types tied together where it is declared. */
export const defineTool = <I, A, R>(spec: ToolSpec<I, A, R>): ToolSpec<I, A, R> => spec

const inputJsonSchema = (schema: Schema.Schema.AnyNoContext) => {
  if (AST.getPropertySignatures(schema.ast).length === 0) return { type: "object", properties: {}, required: [], additionalProperties: false }
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const json = JSONSchema.fromAST(schema.ast, { definitions, topLevelReferenceStrategy: "skip" })
  return Object.keys(definitions).length === 0 ? json : { ...json, $defs: definitions }
}

/** The first thing wrong with the arguments, naming the field (`lineage: model: is missing`). */
const invalidParams = (tool: string, error: ParseResult.ParseError) => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const where = issue === undefined || issue.path.length === 0 ? "arguments" : issue.path.join(".")
  return new InvalidParams({ message: `${tool}: invalid argument ${where}: ${issue?.message ?? "invalid"}` })
}

/** Fields an error carries beyond the body that a caller acts on (the plan to review, the rule, the commands). */
const errorDetails = (error: unknown): Record<string, unknown> => {
  if (typeof error !== "object" || error === null) return {}
  const e = error as { planId?: unknown; model?: unknown; capability?: unknown; rule?: unknown; commands?: unknown }
  return {
    ...(typeof e.planId === "string" ? { plan_id: e.planId } : {}),
    ...(typeof e.model === "string" ? { model: e.model } : {}),
    ...(typeof e.capability === "string" ? { capability: e.capability } : {}),
    // `policy_rule` is the reference system's spelling: the rule's position as a string (null: the default effect).
    ...(typeof e.rule === "number" || e.rule === null ? { rule: e.rule, policy_rule: e.rule === null ? null : String(e.rule) } : {}),
    ...(Array.isArray(e.commands) ? { commands: e.commands } : {})
  }
}

/** A tool error (decisions.md 29): isError, `{code, message, remediation_hint, …}` as structured content. */
const errorResult = (cause: Cause.Cause<unknown>) => {
  const described = describeCause(cause)
  const failure = Option.getOrUndefined(Cause.failureOption(cause))
  const body = { ...errorBody(described), ...errorDetails(failure) }
  return new CallToolResult({ isError: true, structuredContent: body, content: [{ type: "text", text: jsonText(body) }] }, true)
}

/** A tool's argument decoder and output encoder, made once at registration rather than per call. */
const codecs = <I, A, R>(spec: ToolSpec<I, A, R>) => ({
  decode: Schema.decodeUnknown(spec.input, { onExcessProperty: "error" }),
  encode: Schema.encode(spec.output)
})

/** Runs one call: arguments decoded (a bad one is invalid-params), the command's output as structured content and as the CLI's JSON. */
const handle = <I, A, R>(spec: ToolSpec<I, A, R>, codec: ReturnType<typeof codecs<I, A, R>>, payload: unknown) =>
  Effect.gen(function* () {
    const args = yield* codec.decode(payload ?? {}).pipe(
      Effect.mapError((e) => invalidParams(spec.name, e))
    )
    return yield* spec.run(args).pipe(
      // Encoded once: the structured content, and the CLI's JSON text of the same value.
      Effect.flatMap((value) => Effect.orDie(codec.encode(value))),
      Effect.map(
        (structured) =>
          // Built from values checked above: the constructor's own validation (a Schema walk per call) is skipped.
          new CallToolResult({ isError: false, structuredContent: structured as Record<string, unknown>, content: [{ type: "text", text: jsonText(structured) }] }, true)
      ),
      Effect.catchAllCause((cause) => Effect.succeed(errorResult(cause)))
    )
  })

/** Registers tools on the server; each call runs with the services captured here. */
export const registerTools = <const T extends ReadonlyArray<AnyToolSpec<any>>>(specs: T) =>
  Effect.gen(function* () {
    const server = yield* McpServer
    const context = yield* Effect.context<ToolRequirements<T>>()
    for (const spec of specs) {
      const codec = codecs(spec)
      yield* server.addTool({
        tool: new Tool({
          name: spec.name,
          description: spec.description,
          inputSchema: inputJsonSchema(spec.input),
          annotations: new ToolAnnotations({ readOnlyHint: spec.readOnly, destructiveHint: false, idempotentHint: spec.readOnly, openWorldHint: false })
        }),
        // The registry's own tools/call path answers invalid-params with this error type; addTool's signature omits it.
        handle: (payload) => handle(spec, codec, payload).pipe(Effect.provide(context)) as unknown as Effect.Effect<CallToolResult>
      })
    }
  })
