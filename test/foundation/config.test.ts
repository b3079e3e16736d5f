import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option, Redacted } from "effect"
import * as fc from "fast-check"
import * as Toml from "smol-toml"
import { join } from "node:path"
import { mkdirSync } from "node:fs"
import { Environment } from "../../src/services/Environment/Environment"
import { substituteDeferred, substituteEnvVars } from "../../src/services/ProjectConfig/interpolate"
import { findConfigFile, load, loadConfigFile, loadLazy, resolveAll } from "../../src/services/ProjectConfig/ProjectConfig"
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

  it.effect("--config naming a directory is config-unreadable with a plain reason; a directory named pcli.toml is not found", () =>
    Effect.gen(function* () {
      const dir = makeProject({ "sub/.keep": "" })
      const error = yield* Effect.flip(load({ explicit: Option.some(dir), cwd: dir }))
      expect(error._tag).toBe("ConfigUnreadable")
      expect(error.code).toBe("config-unreadable")
      expect(error.message).toBe(`cannot read ${dir}: it is a directory; give the path of a pcli.toml file`)
      mkdirSync(join(dir, "sub", "pcli.toml"))
      expect(Option.isNone(yield* findConfigFile(join(dir, "sub")))).toBe(true)
    }).pipe(Effect.provide(Layer.merge(NodeContext.layer, Layer.succeed(Environment, {}))))
  )
})

const eltBlock = (cache: string) =>
  `[adapter.e]\ntype = "elt"\napi_key = "k"\napi_secret = "s"\ndestination_id = "d"\n[adapter.e.cache]\n${cache}\n`

describe("ProjectConfig: paths", () => {
  const cacheOf = (loaded: { readonly config: { readonly adapter: Readonly<Record<string, { readonly type: string }>> } }) => {
    const e = loaded.config.adapter["e"]
    return e?.type === "elt" ? (e as { readonly cache?: { readonly file_root?: string } }).cache : undefined
  }

  it.effect("file_root is relative to the project root, not the working directory; the file backend defaults it", () =>
    Effect.gen(function* () {
      const dir = makeProject({ "pcli.toml": eltBlock(`backend = "file"\nfile_root = "cache/elt"`), "models/x/.keep": "" })
      const relative = yield* load({ explicit: Option.none(), cwd: join(dir, "models", "x") })
      expect(cacheOf(relative)?.file_root).toBe(join(dir, "cache", "elt"))
      const defaulted = yield* loadText(eltBlock(`backend = "file"`))
      expect(cacheOf(defaulted)?.file_root).toBe(join(defaulted.root, ".pcli", "elt-state"))
      const absolute = yield* loadText(eltBlock(`backend = "file"\nfile_root = "/var/cache/pcli"`))
      expect(cacheOf(absolute)?.file_root).toBe("/var/cache/pcli")
      const kv = yield* loadText(eltBlock(`backend = "kv"\nkv_url = "redis://h"`))
      expect(cacheOf(kv)?.file_root).toBeUndefined()
      const empty = yield* Effect.flip(loadText(eltBlock(`backend = "file"\nfile_root = ""`)))
      expect(empty.message).toMatch(/adapter\.e\.cache\.file_root: must not be empty/)
    }).pipe(Effect.provide(Layer.merge(NodeContext.layer, Layer.succeed(Environment, {}))))
  )
})

const CANARY = "4242424242"
const wh = (body: string) => `[adapter.wh]\ntype = "warehouse"\nhost = "h"\nhttp_path = "/p"\n${body}\n`

describe("ProjectConfig: what errors may show", () => {
  it.effect("a secret field's value is never shown, whatever its type or depth, nor a ${VAR} inside it", () =>
    Effect.gen(function* () {
      const cases: Array<[string, string]> = [
        [wh(`client_secret = \${S}`), "adapter.wh.client_secret: Expected string, got an integer"],
        [wh(`token = [["\${S}"], 1]`), "adapter.wh.token: Expected string, got an array"],
        [wh(`token = ${CANARY}`), "adapter.wh.token: Expected string, got an integer"],
        [wh(`token.a.b = "${CANARY}"`), "adapter.wh.token: Expected string, got a table"],
        [wh(`token = { x = [{ y = "\${S}" }] }`), "adapter.wh.token: Expected string, got a table"],
        [`[adapter.e]\ntype = "elt"\napi_key = "k"\napi_secret = [${CANARY}]\ndestination_id = "d"\n`, "adapter.e.api_secret: Expected string, got an array"],
        [eltBlock(`backend = "kv"\nkv_url = ["redis://:\${S}@h"]`), "adapter.e.cache.kv_url: Expected string, got an array"],
        [`[adapter.e]\ntype = "elt"\napi_key = "k"\napi_secret = "s"\ndestination_id = "d"\ncache = "redis://:\${S}@h"\n`, "adapter.e.cache: Expected"]
      ]
      for (const [text, expected] of cases) {
        const error = yield* Effect.flip(loadText(text, { S: CANARY }))
        expect(error._tag).toBe("InvalidValue")
        expect(error.message).toContain(expected)
        expect(error.message).toContain("a secret's value is never shown")
        expect(error.message).not.toContain(CANARY)
      }
    })
  )

  it.effect("echoed values are cut to about 200 characters and control characters are shown escaped", () =>
    Effect.gen(function* () {
      const huge = "x".repeat(1_000_000)
      const long = yield* Effect.flip(loadText(`[state]\nnamespace = ["${huge}"]\n`))
      expect(long.message).toMatch(/state\.namespace: Expected string, actual \["x{200}…"\]$/)
      expect(long.message.length).toBeLessThan(400)
      const capability = yield* Effect.flip(loadText(`[[policy.rules]]\neffect = "allow"\ncapability = "${huge}"\n`))
      expect(capability.message.length).toBeLessThan(800)
      const escapes = yield* Effect.flip(loadText(`[policy]\n"\\u001b[31mred\\u0007\\u009b" = 1\n`))
      expect(escapes._tag).toBe("UnknownKey")
      expect(escapes.message).toContain("\\u001b[31mred\\u0007\\u009b")
      expect(escapes.message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
      const longKey = yield* Effect.flip(loadText(`[policy]\n${"k".repeat(100_000)} = 1\n`))
      expect(longKey.message.length).toBeLessThan(400)
      const badType = yield* Effect.flip(loadText(`[adapter.x]\ntype = "\\u001b]0;${huge}"\n`))
      expect(badType.message).toMatch(/got "\\u001b\]0;x+…$/)
      expect(badType.message.length).toBeLessThan(400)
    })
  )

  it.effect("a dotted key 5,000 levels deep is a toml-syntax error naming the file, not a crash", () =>
    Effect.gen(function* () {
      for (const root of ["policy", "state", "adapter.x", "gc", "zzz"]) {
        const exit = yield* Effect.exit(loadText(`${root}${".a".repeat(5000)} = 1\n`))
        expect(exit._tag).toBe("Failure")
        const error = yield* Effect.flip(loadText(`${root}${".a".repeat(5000)} = 1\n`))
        expect(error._tag).toBe("TomlSyntax")
        expect(error.code).toBe("toml-syntax")
        expect(error.message).toMatch(/pcli\.toml:1: invalid TOML: keys nested more than 64 levels deep \(/)
        expect(error.message.length).toBeLessThan(500)
      }
      const arrays = yield* Effect.flip(loadText(`x = ${"[".repeat(5000)}${"]".repeat(5000)}\n`))
      expect(arrays.code).toBe("toml-syntax")
    })
  )
})

describe("ProjectConfig: adapters resolve on use", () => {
  const twoAdapters = `[adapter.local]\ntype = "embedded"\n` + wh(`token = "\${PROD_TOKEN}"`) + `[state]\nnamespace = "ci"\n`
  const env = Layer.merge(NodeContext.layer, Layer.succeed(Environment, {}))

  it.effect("an unset ${VAR} in an unused adapter does not stop the others; resolving that adapter fails", () =>
    Effect.gen(function* () {
      const dir = makeProject({ "pcli.toml": twoAdapters })
      const lazy = yield* loadLazy({ explicit: Option.none(), cwd: dir })
      expect(lazy.settings.state?.namespace).toBe("ci")
      expect(lazy.adapters.map((a) => [a.name, a.type])).toEqual([["local", "embedded"], ["wh", "warehouse"]])
      const local = lazy.adapters.find((a) => a.name === "local")!
      expect((yield* local.resolve).type).toBe("embedded")
      const remote = lazy.adapters.find((a) => a.name === "wh")!
      const missing = yield* Effect.flip(remote.resolve)
      expect(missing._tag).toBe("MissingEnvVar")
      expect(missing.message).toBe(`${lazy.file}:7: environment variable PROD_TOKEN is not set (referenced as \${PROD_TOKEN})`)
      // Every adapter at once (what validate checks), and the strict loader, still fail.
      expect((yield* Effect.flip(resolveAll(lazy)))._tag).toBe("MissingEnvVar")
      expect((yield* Effect.flip(load({ explicit: Option.none(), cwd: dir })))._tag).toBe("MissingEnvVar")
    }).pipe(Effect.provide(env))
  )

  it.effect("set, the same variable resolves; an unset one outside an adapter, or in its type or name, fails the load", () =>
    Effect.gen(function* () {
      const dir = makeProject({ "pcli.toml": twoAdapters })
      const set = yield* loadLazy({ explicit: Option.none(), cwd: dir }).pipe(Effect.provide(Layer.succeed(Environment, { PROD_TOKEN: "t" })))
      const remote = yield* set.adapters.find((a) => a.name === "wh")!.resolve
      expect(remote.type === "warehouse" && Redacted.value(remote.token!)).toBe("t")
      for (const text of [
        `[state]\nnamespace = "\${NS}"\n`,
        `[adapter.x]\ntype = "\${KIND}"\n`,
        `[adapter.\${NAME}]\ntype = "embedded"\n`,
        `[adapter.x]\ntype = "embedded"\npath = [\n` + "\${BROKEN}"
      ]) {
        const error = yield* Effect.flip(loadLazy({ explicit: Option.none(), cwd: makeProject({ "pcli.toml": text }) }))
        expect(error._tag).toBe("MissingEnvVar")
      }
    }).pipe(Effect.provide(env))
  )

  it.effect("a decode error in an adapter whose variables are set still fails the load", () =>
    Effect.gen(function* () {
      const dir = makeProject({ "pcli.toml": `[adapter.local]\ntype = "embedded"\n` + wh(`tokn = "x"`) })
      const error = yield* Effect.flip(loadLazy({ explicit: Option.none(), cwd: dir }))
      expect(error._tag).toBe("UnknownKey")
    }).pipe(Effect.provide(env))
  )
})

describe("substituteEnvVars", () => {
  // Any text a variable can hold, control characters and quotes included.
  const anyValue = fc.oneof(fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }), fc.constantFrom("'", '"', "\\", "a'b\nc", "1\n[x]\ny = 2"))
  const substitute = (text: string, value: string) => Effect.runSync(substituteEnvVars(text, { V: value }, "f"))

  it("round-trips any value through a TOML basic, literal or multi-line string (property)", () => {
    // [text around ${V}, what the string holds besides the value]
    const places: Array<readonly [string, string, string]> = [
      ['"', '"', ""],
      ["'", "'", ""],
      ['"""', '"""', ""],
      ["'''", "'''", ""],
      ['"a', 'b"', "a|b"],
      ["'x\\", "'", "x\\|"]
    ]
    fc.assert(
      fc.property(anyValue, fc.constantFrom(...places), (value, [open, close, around]) => {
        const out = substitute(`key = ${open}\${V}${close}\nafter = 1`, value)
        const parsed = Toml.parse(out)
        const [before, after] = around === "" ? ["", ""] : around.split("|")
        expect(parsed["key"]).toBe(`${before}${value}${after}`)
        expect(parsed["after"]).toBe(1)
        expect(out.split("\n")).toHaveLength(2)
      })
    )
  })

  it("an unquoted ${VAR} is a number, boolean or date as written, else a string: it never adds keys (property)", () => {
    fc.assert(
      fc.property(anyValue, (value) => {
        const out = substitute(`key = \${V}\nafter = 1`, value)
        const parsed = Toml.parse(out)
        expect(Object.keys(parsed).sort()).toEqual(["after", "key"])
        if (typeof parsed["key"] === "string") expect(parsed["key"]).toBe(value)
      })
    )
    expect(Toml.parse(substitute("n = ${V}", "4242"))["n"]).toBe(4242)
    expect(Toml.parse(substitute("n = ${V}", "true"))["n"]).toBe(true)
    expect(Toml.parse(substitute("n = [${V}, 2]", "1, 3"))["n"]).toEqual(["1, 3", 2])
  })

  it("an unset variable leaves a marker and keeps every line where it was", () => {
    const { text, unset } = substituteDeferred(`a = "\${X}"\nb = \${Y}\n# \${Z}\nc = 'q\${X}'\n`, {})
    expect(unset).toEqual([
      { variable: "X", line: 1 },
      { variable: "Y", line: 2 },
      { variable: "X", line: 4 }
    ])
    expect(text.split("\n")).toHaveLength(5)
    expect(Object.keys(Toml.parse(text))).toEqual(["a", "b", "c"])
  })

  it("leaves text without references unchanged (property)", () => {
    fc.assert(
      fc.property(fc.string().filter((s) => !s.includes("${")), (text) => {
        expect(Effect.runSync(substituteEnvVars(text, {}, "f"))).toBe(text)
      })
    )
  })
})
