import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  type CompiledProject,
  downstreamClosure,
  layer as compilerLayer,
  PipelineCompiler,
  reachableDownstreams
} from "../../src/services/Project/compile"
import { target, writeProject, type ModelSpec } from "./fixtures"

const compile = (models: Record<string, ModelSpec>, env: Record<string, string> = {}) =>
  Effect.flatMap(PipelineCompiler, (c) => c.compile({ modelsDir: path.join(writeProject(models), "models"), env })).pipe(
    Effect.provide(compilerLayer),
    Effect.provide(NodeContext.layer)
  )

const fail = (models: Record<string, ModelSpec>) =>
  Effect.map(Effect.either(compile(models)), (e) => {
    if (Either.isRight(e)) throw new Error("expected compile to fail")
    return e.left
  })

const diamond: Record<string, ModelSpec> = {
  raw_b: { sql: "SELECT 1 AS id", toml: target("raw", "raw_b") },
  raw_a: { sql: "SELECT 1 AS id", toml: target("raw", "raw_a") },
  stg_a: { sql: "SELECT * FROM raw.raw_a", toml: target("staging", "stg_a") },
  stg_b: { sql: "WITH x AS (SELECT * FROM raw.raw_b) SELECT * FROM x", toml: target("staging", "stg_b") },
  mart: {
    sql: "SELECT * FROM staging.stg_a a JOIN staging.stg_b b USING (id)",
    toml: target("mart", "mart", 'depends_on = ["raw_a"]\n[tags]\nlayer = "gold"')
  },
  side: { sql: "SELECT 2 AS id", toml: target("main", "side", 'depends_on = ["raw_b"]') }
}

describe("compile", () => {
  it.effect("orders by Kahn with alphabetical ties and layers by depth", () =>
    Effect.gen(function* () {
      const project: CompiledProject = yield* compile(diamond)
      expect(project.order).toEqual(["raw_a", "raw_b", "side", "stg_a", "stg_b", "mart"])
      expect(project.layers).toEqual([["raw_a", "raw_b"], ["side", "stg_a", "stg_b"], ["mart"]])
      expect(project.models.get("mart")!.upstream).toEqual(["raw_a", "stg_a", "stg_b"])
      expect(project.models.get("mart")!.layer).toBe("gold")
      expect(downstreamClosure(project, "raw_b")).toEqual(["mart", "side", "stg_b"])
      expect(reachableDownstreams(project, "raw_a")).toBe(2)
      expect(reachableDownstreams(project, "mart")).toBe(0)
      expect(reachableDownstreams(project, "nope")).toBeUndefined()
    }).pipe(Effect.provide(NodeContext.layer))
  )

  it.effect("CTE names are not dependencies; declared sources are external", () =>
    Effect.gen(function* () {
      const project = yield* compile({
        a: {
          sql: "WITH raw_a AS (SELECT 1 AS id) SELECT * FROM raw_a, ext.events",
          toml: target("main", "a", '[[sources]]\nschema = "ext"\ntable = "events"')
        }
      })
      expect(project.models.get("a")!.upstream).toEqual([])
      expect(project.models.get("a")!.sourceRefs).toEqual(["ext.events"])
    })
  )

  it.effect("a cycle fails with the cycle listed", () =>
    Effect.gen(function* () {
      const error = yield* fail({
        a: { sql: "SELECT * FROM main.c" },
        b: { sql: "SELECT * FROM main.a" },
        c: { sql: "SELECT * FROM main.b" },
        d: { sql: "SELECT * FROM main.c" }
      })
      expect(error._tag).toBe("DependencyCycle")
      expect(error.code).toBe("dependency-cycle")
      expect(error.message).toBe("dependency cycle: a -> c -> b -> a")
    })
  )

  it.effect("unknown depends_on and unknown SQL references fail with the model", () =>
    Effect.gen(function* () {
      const e1 = yield* fail({ a: { sql: "SELECT 1", toml: target("main", "a", 'depends_on = ["ghost"]') } })
      expect(e1.code).toBe("unknown-reference")
      expect(e1.message).toContain("model a")
      expect(e1.message).toContain("ghost")
      const e2 = yield* fail({ a: { sql: "SELECT * FROM nowhere.t" } })
      expect(e2.code).toBe("unknown-reference")
      expect(e2.message).toContain("nowhere.t")
    })
  )

  it.effect("an unreadable model file or models directory is models-unreadable, naming the path", () =>
    Effect.gen(function* () {
      const root = writeProject({ a: { sql: "SELECT 1" }, b: { sql: "SELECT 2" } })
      // A directory where b.sql should be: the read itself fails (EISDIR), whoever runs the test.
      fs.rmSync(path.join(root, "models", "b.sql"))
      fs.mkdirSync(path.join(root, "models", "b.sql"))
      const compileDir = (modelsDir: string) =>
        Effect.flip(Effect.flatMap(PipelineCompiler, (c) => c.compile({ modelsDir, env: {} }))).pipe(
          Effect.provide(compilerLayer),
          Effect.provide(NodeContext.layer)
        )
      const file = yield* compileDir(path.join(root, "models"))
      expect(file.code).toBe("models-unreadable")
      expect(file.message).toContain(path.join(root, "models", "b.sql"))
      expect(file.message).toContain("EISDIR")
      const dir = yield* compileDir(path.join(root, "no-such-dir"))
      expect(dir.code).toBe("models-unreadable")
      expect(dir.message).toContain("no-such-dir")
    })
  )

  it.effect("a syntax error names the model's file and line and carries DuckDB's message", () =>
    Effect.gen(function* () {
      const error = yield* fail({ good: { sql: "SELECT 1" }, bad: { sql: "SELECT 1\nFROM t\nWHERE x = = 2" } })
      expect(error._tag).toBe("ModelSqlInvalid")
      expect(error.message).toMatch(/^1 model failed to compile: \/.*\/models\/bad\.sql:3: syntax error at or near "="$/)
    })
  )

  it.effect("every broken model is listed, in name order, with its file and line; the first line summarises", () =>
    Effect.gen(function* () {
      const error = yield* fail({
        a_ok: { sql: "SELECT 1 AS id" },
        b_syntax: { sql: "-- header\nSELECT id\nFROM raw.t\nWHERE id = = 1" },
        c_drop: { sql: "/* cleanup */\nDROP TABLE main.old" },
        d_two: { sql: "SELECT 1; SELECT 2" },
        e_empty: { sql: "  -- nothing here\n" }
      })
      expect(error._tag).toBe("ModelSqlInvalid")
      if (error._tag !== "ModelSqlInvalid") return
      const [first, ...rest] = error.message.split("\n")
      expect(first).toBe("4 models failed to compile: b_syntax, c_drop, d_two, e_empty")
      expect(error.problems.map((p) => [p.model, path.basename(p.file), p.line])).toEqual([
        ["b_syntax", "b_syntax.sql", 4],
        ["c_drop", "c_drop.sql", undefined],
        ["d_two", "d_two.sql", undefined],
        ["e_empty", "e_empty.sql", undefined]
      ])
      expect(rest).toHaveLength(4)
      expect(rest[0]).toMatch(/b_syntax\.sql:4: syntax error at or near "="$/)
      expect(rest[1]).toMatch(/c_drop\.sql: a model must be a single SELECT query \(found DROP …\)$/)
      expect(rest[2]).toMatch(/d_two\.sql: a model must be a single SELECT query \(found 2 statements\)$/)
      expect(rest[3]).toMatch(/e_empty\.sql: a model must be a single SELECT query \(found no statement\)$/)
      expect(error.message).not.toContain("serialized to json")
    })
  )

  it.effect("more than one statement is rejected", () =>
    Effect.gen(function* () {
      const error = yield* fail({ a: { sql: "SELECT 1; SELECT 2" } })
      expect(error.code).toBe("model-sql-invalid")
    })
  )

  it.effect("unknown sidecar keys and bad strategies are errors with a path", () =>
    Effect.gen(function* () {
      const e1 = yield* fail({ a: { sql: "SELECT 1", toml: target("main", "a", "colour = 1") } })
      expect(e1.code).toBe("config-unknown-key")
      expect(e1.message).toContain("colour")
      const e2 = yield* fail({ a: { sql: "SELECT 1", toml: target("main", "a") + '[strategy]\ntype = "merge"\n' } })
      expect(e2.code).toBe("config-invalid")
      expect(e2.message).toContain("strategy")
      const e3 = yield* fail({
        a: { sql: "SELECT 1", toml: target("main", "a") + '[strategy]\ntype = "content_addressed"\nstorage_prefix = "s3://b/p"\n' }
      })
      expect(e3.code).toBe("invalid-strategy")
    })
  )

  it.effect("${VAR} is substituted in sidecars; a missing one is an error", () =>
    Effect.gen(function* () {
      const models = { a: { sql: "SELECT 1", toml: '[target]\ncatalog = "${CAT}"\nschema = "main"\ntable = "a"\n' } }
      const project = yield* compile(models, { CAT: "prod" })
      expect(project.models.get("a")!.target.catalog).toBe("prod")
      const error = yield* Effect.flip(compile(models))
      expect(error.code).toBe("config-missing-env")
    })
  )

  it.effect("a contract file makes the model contracted", () =>
    Effect.gen(function* () {
      const project = yield* compile({
        a: { sql: "SELECT 1 AS id", contract: '[[columns]]\nname = "id"\ntype = "INTEGER"\nnullable = false\n' }
      })
      expect(project.models.get("a")!.contracted).toBe(true)
    })
  )
})
