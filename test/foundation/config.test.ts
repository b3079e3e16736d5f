import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option, Redacted } from "effect"
import * as fc from "fast-check"
import * as Toml from "smol-toml"
import { join } from "node:path"
import { Environment } from "../../src/services/Environment/Environment"
import { substituteEnvVars } from "../../src/services/ProjectConfig/interpolate"
import { load, loadConfigFile } from "../../src/services/ProjectConfig/ProjectConfig"
import { makeProject } from "../support/cli"

const fullConfig = `
[project]
name = "shop"

[adapter.wh]
type = "warehouse"
host = "dbc.example.cloud"
http_path = "/sql/1.0/warehouses/abc123"
token = "\${WH_TOKEN}"   # from the environment

[adapter.fivetran]
type = "elt"
kind = "discovery"
api_key = "key-1"
api_secret = "\${ELT_SECRET}"
destination_id = "dest_1"

[adapter.fivetran.cache]
backend = "tiered"
object_store_url = "s3://bucket/prefix/"
kv_url = "rediss://:\${KV_PASSWORD}@cache.internal:6380"
kv_ttl_seconds = 600

[adapter.local]
type = "embedded"

[adapter.seeds]
type = "manual"

[state]
namespace = "ci"

[gc]
min_age_days = 7
`

const loadText = (text: string, env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const dir = makeProject({ "pcli.toml": text })
    return yield* loadConfigFile(join(dir, "pcli.toml"), env)
  }).pipe(Effect.provide(NodeContext.layer))

describe("ProjectConfig", () => {
  it.effect("decodes every block, substitutes ${VAR}s and keeps secrets redacted", () =>
    Effect.gen(function* () {
      const loaded = yield* loadText(fullConfig, { WH_TOKEN: "dapi-SECRET-1", ELT_SECRET: "elt-SECRET-2", KV_PASSWORD: "kv-SECRET-3" })
      const wh = loaded.config.adapter["wh"]
      const elt = loaded.config.adapter["fivetran"]
      expect(wh?.type).toBe("warehouse")
      expect(elt?.type).toBe("elt")
      if (wh?.type !== "warehouse" || elt?.type !== "elt") return
      expect(Redacted.isRedacted(wh.token)).toBe(true)
      expect(Redacted.value(wh.token!)).toBe("dapi-SECRET-1")
      expect(Redacted.value(elt.api_secret)).toBe("elt-SECRET-2")
      expect(Redacted.value(elt.cache!.kv_url!)).toBe("rediss://:kv-SECRET-3@cache.internal:6380")
      expect(elt.cache?.backend).toBe("tiered")
      expect(loaded.config.adapter["local"]?.type).toBe("embedded")
      expect(loaded.config.state?.namespace).toBe("ci")
      // Printing the decoded config never shows a secret.
      const printed = JSON.stringify(loaded.config) + String(wh.token) + String(elt.api_secret)
      expect(printed).not.toMatch(/SECRET/)
    })
  )

  it.effect("a missing ${VAR} is an error naming the variable and the line", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(loadText(fullConfig, { WH_TOKEN: "x", KV_PASSWORD: "y" }))
      expect(error._tag).toBe("MissingEnvVar")
      expect(error.message).toMatch(/pcli\.toml:15: environment variable ELT_SECRET is not set/)
    })
  )

  it.effect("a ${VAR} inside a comment is left alone", () =>
    Effect.gen(function* () {
      const loaded = yield* loadText(`# token = "\${NOT_SET}"\n[adapter.x]\ntype = "embedded" # \${ALSO_NOT_SET}\n`)
      expect(loaded.config.adapter["x"]?.type).toBe("embedded")
    })
  )

  it.effect("malformed TOML names file and line", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(loadText(`[adapter.x]\ntype = "embedded"\npath = [\n`))
      expect(error._tag).toBe("TomlSyntax")
      expect(error.code).toBe("toml-syntax")
      expect(error.message).toMatch(/pcli\.toml:\d+: invalid TOML/)
    })
  )

  it.effect("an unknown key is an error with its dotted path and line", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        loadText(`[adapter.wh]\ntype = "warehouse"\nhost = "h"\nhttp_path = "/p"\ntokn = "abc"\n`)
      )
      expect(error._tag).toBe("UnknownKey")
      expect(error.code).toBe("config-unknown-key")
      expect(error.message).toBe(`${error.file}:5: unknown key adapter.wh.tokn`)
    })
  )

  it.effect("an unknown top-level table is an error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(loadText(`[adaptor.wh]\ntype = "warehouse"\n`))
      expect(error.message).toMatch(/unknown key adaptor/)
    })
  )

  it.effect("a wrong type names the key", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(loadText(`[adapter.e]\ntype = "elt"\napi_key = "k"\napi_secret = "s"\ndestination_id = 5\n`))
      expect(error._tag).toBe("InvalidValue")
      expect(error.message).toMatch(/:5: adapter\.e\.destination_id: Expected string, actual 5/)
    })
  )

  it.effect("an unknown adapter type lists the valid ones", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(loadText(`[adapter.x]\ntype = "snowflake"\n`))
      expect(error.message).toMatch(/adapter\.x\.type: expected one of warehouse, elt, embedded, manual, got "snowflake"/)
    })
  )

  it.effect("an unknown cache backend is refused", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        loadText(`[adapter.e]\ntype = "elt"\napi_key = "k"\napi_secret = "s"\ndestination_id = "d"\n[adapter.e.cache]\nbackend = "memcached"\n`)
      )
      expect(error.message).toMatch(/adapter\.e\.cache\.backend/)
    })
  )

  it.effect("finds pcli.toml in a parent directory; none anywhere is config-not-found", () =>
    Effect.gen(function* () {
      const dir = makeProject({ "pcli.toml": `[adapter.x]\ntype = "embedded"\n`, "models/sub/.keep": "" })
      const loaded = yield* load({ explicit: Option.none(), cwd: join(dir, "models", "sub") })
      expect(loaded.root).toBe(dir)
      const empty = makeProject()
      const error = yield* Effect.flip(load({ explicit: Option.none(), cwd: empty }))
      expect(error._tag).toBe("ConfigNotFound")
    }).pipe(Effect.provide(Layer.merge(NodeContext.layer, Layer.succeed(Environment, {}))))
  )
})

describe("substituteEnvVars", () => {
  it("round-trips any value through a TOML basic string (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s)), (value) => {
        const text = `key = "\${V}"`
        const out = Effect.runSync(Effect.either(substituteEnvVars(text, { V: value }, "f")))
        expect(Either.isRight(out)).toBe(true)
        if (Either.isRight(out)) expect(Toml.parse(out.right)["key"]).toBe(value)
      })
    )
  })

  it("leaves text without references unchanged (property)", () => {
    fc.assert(
      fc.property(fc.string().filter((s) => !s.includes("${")), (text) => {
        expect(Effect.runSync(substituteEnvVars(text, {}, "f"))).toBe(text)
      })
    )
  })
})
