import { FileSystem, Path } from "@effect/platform"
import { Context, Data, Effect, Layer, Option, Schema } from "effect"
import { EltAdapter, EmbeddedAdapter, ManualAdapter, WarehouseAdapter, type Adapter } from "../../schemas/adapters"
import { ProjectConfigFile, type ProjectConfigData } from "../../schemas/config"
import { Environment } from "../Environment/Environment"
import { checkFreezeMarkerWrites } from "../PolicyEngine/validate"
import { InvalidValue, type MissingEnvVar, type TomlDecodeError } from "./errors"
import { substituteEnvVars } from "./interpolate"
import { decodeTomlValue, locateKey, parseToml } from "../../platform/toml"

export const CONFIG_FILE = "pcli.toml"

export class ConfigNotFound extends Data.TaggedError("ConfigNotFound")<{ readonly searched: string }> {
  readonly code = "config-not-found"
  override get message() {
    return `no ${CONFIG_FILE} found in ${this.searched} or any parent directory (use --config <path>)`
  }
}

export class ConfigUnreadable extends Data.TaggedError("ConfigUnreadable")<{
  readonly file: string
  readonly detail: string
}> {
  readonly code = "config-unreadable"
  override get message() {
    return `cannot read ${this.file}: ${this.detail}`
  }
}

export type ConfigError = ConfigNotFound | ConfigUnreadable | MissingEnvVar | TomlDecodeError

/** A loaded project: the decoded pcli.toml, where it was and the root it anchors. */
export interface LoadedConfig {
  readonly file: string
  readonly root: string
  readonly config: ProjectConfigData
}

export class ProjectConfig extends Context.Tag("pcli/ProjectConfig")<ProjectConfig, LoadedConfig>() {}

const adapterSchemas = {
  warehouse: WarehouseAdapter,
  elt: EltAdapter,
  embedded: EmbeddedAdapter,
  manual: ManualAdapter
} as const

const isAdapterType = (t: unknown): t is keyof typeof adapterSchemas =>
  typeof t === "string" && Object.prototype.hasOwnProperty.call(adapterSchemas, t)

/** Decodes each `[adapter.NAME]` block by its `type`, so errors name the block's own keys. */
const decodeAdapters = (raw: Readonly<Record<string, unknown>>, text: string, file: string) =>
  Effect.forEach(Object.entries(raw), ([name, block]) => {
    const type = typeof block === "object" && block !== null ? (block as Record<string, unknown>)["type"] : undefined
    if (!isAdapterType(type)) {
      const path = ["adapter", name, "type"]
      return Effect.fail(
        new InvalidValue({
          file,
          line: locateKey(text, path),
          path: path.join("."),
          detail: `expected one of ${Object.keys(adapterSchemas).join(", ")}, got ${JSON.stringify(type ?? null)}`
        })
      )
    }
    const schema = adapterSchemas[type] as unknown as Schema.Schema<Adapter, unknown>
    return Effect.map(decodeTomlValue(schema, block, text, file, ["adapter", name]), (a) => [name, a] as const)
  }).pipe(Effect.map((entries) => Object.fromEntries(entries) as Record<string, Adapter>))

/** Reads, substitutes `${VAR}`s in, and decodes one pcli.toml. */
export const loadConfigFile = (file: string, env: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const raw = yield* fs
      .readFileString(file)
      .pipe(Effect.mapError((e) => new ConfigUnreadable({ file, detail: e._tag === "SystemError" && e.reason === "NotFound" ? "no such file" : e.message })))
    const text = yield* substituteEnvVars(raw, env, file)
    const data = yield* parseToml(text, file)
    const decoded = yield* decodeTomlValue(ProjectConfigFile, data, text, file)
    const adapter = yield* decodeAdapters(decoded.adapter ?? {}, text, file)
    const config: ProjectConfigData = { ...decoded, adapter }
    yield* checkFreezeMarkerWrites(config.policy, config.state?.object_store_url, text, file)
    return { file: path.resolve(file), root: path.dirname(path.resolve(file)), config } satisfies LoadedConfig
  })

/** Finds pcli.toml in `from` or the nearest parent, as git finds `.git`. */
export const findConfigFile = (from: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    let dir = path.resolve(from)
    for (;;) {
      const candidate = path.join(dir, CONFIG_FILE)
      if (yield* fs.exists(candidate).pipe(Effect.orElseSucceed(() => false))) return Option.some(candidate)
      const parent = path.dirname(dir)
      if (parent === dir) return Option.none<string>()
      dir = parent
    }
  })

export interface ConfigLocation {
  /** `--config`, when given. */
  readonly explicit: Option.Option<string>
  /** Where to start looking otherwise. */
  readonly cwd: string
}

/** Locates and loads the project config. */
export const load = (location: ConfigLocation) =>
  Effect.gen(function* () {
    const file = Option.isSome(location.explicit) ? location.explicit : yield* findConfigFile(location.cwd)
    if (Option.isNone(file)) return yield* new ConfigNotFound({ searched: location.cwd })
    const env = yield* Environment
    return yield* loadConfigFile(file.value, env)
  })

export const layer = (location: ConfigLocation) => Layer.effect(ProjectConfig, load(location))
