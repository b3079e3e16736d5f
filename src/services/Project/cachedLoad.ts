import type { FileSystem, Path } from "@effect/platform"
import { Effect, Either, Fiber } from "effect"
import type { ModelContract, ModelSidecar } from "../../schemas/model"
import { substituteEnvVars } from "../ProjectConfig/interpolate"
import { parseableSql } from "../Runner/partitions"
import type { StatementFailed } from "../Warehouse/Warehouse"
import { type CacheBody, contentHash, emptyBody, readCache, writeCache } from "./compileCache"
import type { ModelSqlInvalid } from "./errors"
import { decodeModel, type LoadModelsOptions, type ModelDefinition, type ModelListing, type ModelLoadError, readText } from "./models"
import { parseReferences, type TableRef } from "./sqlRefs"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** How a compile used its cache: read by `pcli compile`'s trace and by tests. */
export interface CacheUse {
  readonly cache: "hit" | "absent" | "corrupt" | "foreign" | "off"
  /** Models whose SQL went through DuckDB's parser this time. */
  readonly sqlParsed: number
  /** Models whose sidecar/contract were decoded from TOML this time. */
  readonly sidecarsDecoded: number
}

const substituted = (text: string, env: LoadModelsOptions["env"], file: string) =>
  text.includes("${") ? substituteEnvVars(text, env, file) : Effect.succeed(text)

/** Decodes each listed model, reusing the cached decode of any sidecar/contract text seen before. */
const decodeWithCache = (
  listing: ModelListing,
  sqls: ReadonlyArray<string>,
  env: LoadModelsOptions["env"],
  old: CacheBody,
  next: Mutable<CacheBody>,
  counter: { decoded: number }
): Effect.Effect<ReadonlyArray<ModelDefinition>, ModelLoadError> =>
  Effect.forEach(listing.names, (name, i) =>
    Effect.gen(function* () {
      const sidecarPath = listing.sidecarPaths[i]!
      const contractPath = listing.contractPaths[i]
      const sidecarText = yield* readText(sidecarPath)
      const contractText = contractPath === undefined ? undefined : yield* readText(contractPath)
      const sidecarKey = contentHash(yield* substituted(sidecarText, env, sidecarPath))
      const contractKey =
        contractText === undefined || contractPath === undefined
          ? undefined
          : contentHash(yield* substituted(contractText, env, contractPath))
      const cachedSidecar: ModelSidecar | undefined = Object.hasOwn(old.sidecars, sidecarKey) ? old.sidecars[sidecarKey] : undefined
      const cachedContract: ModelContract | undefined =
        contractKey !== undefined && Object.hasOwn(old.contracts, contractKey) ? old.contracts[contractKey] : undefined
      if (cachedSidecar !== undefined && cachedSidecar.name === name && (contractKey === undefined || cachedContract !== undefined)) {
        next.sidecars[sidecarKey] = cachedSidecar
        if (contractKey !== undefined) next.contracts[contractKey] = cachedContract!
        return {
          name,
          sql: sqls[i]!,
          sqlPath: listing.sqlPaths[i]!,
          sidecarPath,
          sidecar: cachedSidecar,
          contract: cachedContract,
          contractPath: cachedContract === undefined ? undefined : contractPath
        } satisfies ModelDefinition
      }
      counter.decoded++
      const def = yield* decodeModel({
        name,
        sql: sqls[i]!,
        sqlPath: listing.sqlPaths[i]!,
        sidecarText,
        sidecarPath,
        contractText,
        contractPath,
        env
      })
      next.sidecars[sidecarKey] = def.sidecar
      if (contractKey !== undefined && def.contract !== undefined) next.contracts[contractKey] = def.contract
      return def
    })
  )

export interface CachedLoad {
  readonly definitions: Either.Either<ReadonlyArray<ModelDefinition>, ModelLoadError>
  readonly parsed: Either.Either<ReadonlyMap<string, ReadonlyArray<TableRef>>, ModelSqlInvalid | StatementFailed>
  readonly use: CacheUse
  /** Persists what this load learned (call once the project compiled). */
  readonly save: Effect.Effect<void, never, FileSystem.FileSystem | Path.Path>
}

/**
 * Decodes the listed models and the tables each one's SQL reads, reusing the compile cache:
 * only SQL texts the cache has not seen go through DuckDB (so with nothing changed DuckDB is
 * never loaded), parsed on its threads while this one decodes the sidecars it has not seen.
 */
export const loadWithCache = (
  options: LoadModelsOptions & { readonly cache?: boolean },
  listing: ModelListing,
  sqls: ReadonlyArray<string>
): Effect.Effect<CachedLoad> =>
  Effect.gen(function* () {
    const loaded = options.cache === false ? { status: "off" as const, body: emptyBody() } : readCache(options.modelsDir)
    const old = loaded.body
    const next: Mutable<CacheBody> = { sql: {}, sidecars: {}, contracts: {} }
    const refs = new Map<string, ReadonlyArray<TableRef>>()
    const misses: Array<{ model: string; sql: string; file: string; key: string }> = []
    listing.names.forEach((model, i) => {
      const sql = parseableSql(sqls[i]!)
      const key = contentHash(sql)
      const hit = Object.hasOwn(old.sql, key) ? old.sql[key] : undefined
      if (hit !== undefined) {
        refs.set(model, hit)
        next.sql[key] = hit
      } else misses.push({ model, sql, file: listing.sqlPaths[i]!, key })
    })
    // Forked first so DuckDB parses on its threads while this one decodes the sidecars.
    const parsing = misses.length === 0 ? undefined : yield* Effect.fork(Effect.either(parseReferences(misses)))
    const counter = { decoded: 0 }
    const definitions = yield* Effect.either(decodeWithCache(listing, sqls, options.env, old, next, counter))
    const fresh = parsing === undefined ? Either.right(new Map<string, ReadonlyArray<TableRef>>()) : yield* Fiber.join(parsing)
    const parsed = Either.map(fresh, (map) => {
      for (const miss of misses) {
        const found = map.get(miss.model)
        if (found !== undefined) {
          refs.set(miss.model, found)
          next.sql[miss.key] = found
        }
      }
      return refs as ReadonlyMap<string, ReadonlyArray<TableRef>>
    })
    const size = (body: CacheBody) =>
      Object.keys(body.sql).length + Object.keys(body.sidecars).length + Object.keys(body.contracts).length
    const changed = loaded.status !== "hit" || misses.length > 0 || counter.decoded > 0 || size(old) !== size(next)
    return {
      definitions,
      parsed,
      use: { cache: loaded.status, sqlParsed: misses.length, sidecarsDecoded: counter.decoded },
      save: options.cache === false || !changed ? Effect.void : writeCache(options.modelsDir, next)
    }
  })
