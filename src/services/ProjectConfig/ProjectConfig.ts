import { FileSystem, Path } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Data, Effect, Layer, Option } from "effect"
import { ProjectConfigFile, type ProjectConfigData } from "../../schemas/config"
import { Environment } from "../Environment/Environment"
import { checkFreezeMarkerWrites } from "../PolicyEngine/validate"
import { adapterSecretNames, type AdapterRef, decodeAdapters, unsetByAdapter } from "./adapters"
import { elide, sanitize } from "../../platform/echo"
import { MissingEnvVar, type TomlDecodeError } from "./errors"
import { substituteDeferred } from "./interpolate"
import { decodeTomlValue, parseToml } from "../../platform/toml"

export type { AdapterRef, AdapterType } from "./adapters"

export const CONFIG_FILE = "pcli.toml"

export class ConfigNotFound extends Data.TaggedError("ConfigNotFound")<{ readonly searched: string }> {
  readonly code = "config-not-found"
  override get message() {
    return `no ${CONFIG_FILE} found in ${sanitize(elide(this.searched, 400))} or any parent directory (use --config <path>)`
  }
}

export class ConfigUnreadable extends Data.TaggedError("ConfigUnreadable")<{
  readonly file: string
  readonly detail: string
}> {
  readonly code = "config-unreadable"
  override get message() {
    return `cannot read ${sanitize(elide(this.file, 400))}: ${sanitize(elide(this.detail, 400))}`
  }
}

export type ConfigError = ConfigNotFound | ConfigUnreadable | MissingEnvVar | TomlDecodeError

/** Everything in pcli.toml but the adapter blocks. */
export type ProjectSettings = Omit<ProjectConfigData, "adapter">

/** A loaded project: the decoded pcli.toml, where it was and the root it anchors. */
export interface LoadedConfig {
  readonly file: string
  readonly root: string
  readonly config: ProjectConfigData
}

/**
 * A loaded project whose adapter blocks resolve on use: the settings and each adapter's name and
 * type are checked at load; a `${VAR}` inside an adapter block is needed only when that adapter is.
 */
export interface LazyConfig {
  readonly file: string
  readonly root: string
  readonly settings: ProjectSettings
  /** In file order. */
  readonly adapters: ReadonlyArray<AdapterRef>
}

export class ProjectConfig extends Context.Tag("pcli/ProjectConfig")<ProjectConfig, LoadedConfig>() {}

const reasons: Partial<Record<string, string>> = {
  NotFound: "no such file",
  PermissionDenied: "permission denied",
  InvalidData: "not valid text"
}

const unreadable = (file: string) => (e: PlatformError) =>
  new ConfigUnreadable({
    file,
    detail: e._tag === "SystemError" ? (reasons[e.reason] ?? e.description ?? e.reason) : e.message
  })

/** The file's text; a directory or device named by --config is refused before any read. */
const readConfigText = (file: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(file).pipe(Effect.mapError(unreadable(file)))
    if (info.type === "Directory") {
      return yield* new ConfigUnreadable({ file, detail: "it is a directory; give the path of a pcli.toml file" })
    }
    if (info.type !== "File") return yield* new ConfigUnreadable({ file, detail: "not a regular file" })
    return yield* fs.readFileString(file).pipe(Effect.mapError(unreadable(file)))
  })

/**
 * Decodes pcli.toml text: `${VAR}`s outside adapter blocks must be set; adapter blocks that
 * reference an unset variable are left to fail when resolved. `root` anchors relative paths.
 */
export const decodeConfigText = (text: string, env: Readonly<Record<string, string | undefined>>, file: string, root: string) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const { text: substituted, unset } = substituteDeferred(text, env)
    const missing = (index: number) => {
      const ref = unset[index]
      return ref === undefined ? undefined : new MissingEnvVar({ file, line: ref.line, variable: ref.variable })
    }
    // With a variable unset the text may not parse for that reason alone: report the variable, as a full substitution would.
    const data = yield* parseToml(substituted, file).pipe(Effect.mapError((e) => missing(0) ?? e))
    const owned = unsetByAdapter(data)
    const ownedIndexes = new Set([...owned.values()].flat())
    const global = missing(unset.findIndex((_, i) => !ownedIndexes.has(i)))
    if (global !== undefined) return yield* global
    const { adapter: raw, ...settings } = yield* decodeTomlValue(ProjectConfigFile, data, substituted, file, [], adapterSecretNames)
    const adapters = yield* decodeAdapters({ raw: raw ?? {}, text: substituted, file, root, unset, owned }, path)
    yield* checkFreezeMarkerWrites(settings.policy, settings.state?.object_store_url, substituted, file)
    return { file, root, settings, adapters } satisfies LazyConfig
  })

/** Reads one pcli.toml, adapters resolved on use. */
export const loadLazyConfigFile = (file: string, env: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function* () {
    const path = yield* Path.Path
    const text = yield* readConfigText(file)
    const absolute = path.resolve(file)
    return yield* decodeConfigText(text, env, absolute, path.dirname(absolute))
  })

/** Resolves every adapter block: what `pcli validate` checks and what the strict loaders return. */
export const resolveAll = (lazy: LazyConfig): Effect.Effect<LoadedConfig, MissingEnvVar> =>
  Effect.forEach(lazy.adapters, (ref) => Effect.map(ref.resolve, (a) => [ref.name, a] as const)).pipe(
    Effect.map((entries) => ({
      file: lazy.file,
      root: lazy.root,
      config: { ...lazy.settings, adapter: Object.fromEntries(entries) }
    }))
  )

/** Reads, substitutes `${VAR}`s in, and decodes one pcli.toml, every adapter resolved. */
export const loadConfigFile = (file: string, env: Readonly<Record<string, string | undefined>>) =>
  Effect.flatMap(loadLazyConfigFile(file, env), resolveAll)

/** Finds pcli.toml (a file, not a directory of that name) in `from` or the nearest parent, as git finds `.git`. */
export const findConfigFile = (from: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    let dir = path.resolve(from)
    for (;;) {
      const candidate = path.join(dir, CONFIG_FILE)
      const info = yield* fs.stat(candidate).pipe(Effect.option)
      if (Option.isSome(info) && info.value.type !== "Directory") return Option.some(candidate)
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

/** Locates and loads the project config, adapters resolved on use. */
export const loadLazy = (location: ConfigLocation) =>
  Effect.gen(function* () {
    const file = Option.isSome(location.explicit) ? location.explicit : yield* findConfigFile(location.cwd)
    if (Option.isNone(file)) return yield* new ConfigNotFound({ searched: location.cwd })
    const env = yield* Environment
    return yield* loadLazyConfigFile(file.value, env)
  })

/** Locates and loads the project config with every adapter resolved. */
export const load = (location: ConfigLocation) => Effect.flatMap(loadLazy(location), resolveAll)

export const layer = (location: ConfigLocation) => Layer.effect(ProjectConfig, load(location))
