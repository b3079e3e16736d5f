import type { FileSystem, Path } from "@effect/platform"
import * as NodeFs from "node:fs"
import { Effect, Either, Fiber } from "effect"
import { substituteEnvVars } from "../../ProjectConfig/interpolate"
import type { StatementFailed } from "../../Warehouse/Warehouse"
import {
  type CacheBody,
  type CachedSql,
  contentHash,
  emptyBody,
  emptyCache,
  copyBody,
  copyStamp,
  entryCount,
  type FileStamp,
  keyIfStamped,
  putStamp,
  stampOf,
  readCache,
  rememberJson,
  shardCount,
  shardOf,
  shardsToWrite,
  storedPartsOrNone,
  CompileCacheWrites
} from "./compileCache"
import { CompileCacheReads } from "./cacheReads"
import { cacheBuild, writeShardFiles } from "./shardFile"
import type { ModelSqlInvalid } from "../errors"
import { decodeModel, type LoadModelsOptions, type ModelDefinition, type ModelListing, type ModelLoadError, readText } from "../models"
import { quickDecode, quickReferences, type SidecarSummary } from "./fileWork"
import { type CacheUse, type Decoded, filesToRead, racyMarginMs, type Read, readAheadMinFiles } from "./loadFiles"
import { fastDecodeContract, fastDecodeSidecar } from "../sidecarFast"
import { type FileStat, type ReadAheadOptions, readStamped, startReadAhead } from "./readAhead"
import { parseableSql, parseReferencesWithDuckDb, type TableRef } from "../sql"

/** What a load gives per model: its whole definition, or (`pcli compile`) only what that needs of it. */
export interface LoadShape<M> {
  readonly ofDefinition: (definition: ModelDefinition) => M
  /** From a sidecar the worker decoded, by its summary alone (its JSON goes to the cache unparsed); absent: the sidecar is parsed. */
  readonly ofSummary?: (summary: SidecarSummary, contracted: boolean) => M
}

export const definitionsShape: LoadShape<ModelDefinition> = { ofDefinition: (definition) => definition }

export interface CachedLoad<M = ModelDefinition> {
  readonly definitions: Either.Either<ReadonlyArray<M>, ModelLoadError>
  readonly parsed: Either.Either<ReadonlyMap<string, ReadonlyArray<TableRef>>, ModelSqlInvalid | StatementFailed>
  readonly use: CacheUse
  /**
   * Persists what this load learned (call once the project compiled): on the read-ahead worker
   * where one ran, while this thread goes on, else here. The effect it gives waits until it is
   * written (and writes here what the worker could not).
   */
  readonly save: Effect.Effect<Effect.Effect<void>, never, FileSystem.FileSystem | Path.Path>
  /** The stamp this load recorded for a model's file (`.sql`, `.toml`, `.contract.toml`): only files safely older than the load, without `${VAR}`. */
  readonly stampOf: (model: string, suffix: string) => FileStamp | undefined
}

/**
 * Reads the listed models and the tables each one's SQL reads, reusing the compile cache: a file
 * whose stat is unchanged is not read at all, a text seen before is not decoded again, and only
 * SQL the fast reader (`sqlFast.ts`) does not fully recognise goes to DuckDB, parsed on its
 * threads while this one decodes sidecars (so DuckDB loads only for such SQL). Failures keep the
 * order of the plain loader: SQL files read, then sidecars and contracts in name order.
 */
export const loadWithCache = (options: LoadOptions, listing: ModelListing, scope: "all" | "listed" = "all"): Effect.Effect<CachedLoad, ModelLoadError> =>
  loadShaped(options, listing, scope, definitionsShape)

export type LoadOptions = LoadModelsOptions & {
  readonly cache?: boolean
  /** From how many files to read with a worker (default `readAheadMinFiles`), and how (tests name the worker's bundle). */
  readonly readAhead?: ReadAheadOptions & { readonly minFiles?: number }
}

/** `loadWithCache`, giving each model in `shape`. */
export const loadShaped = <M>(options: LoadOptions, listing: ModelListing, scope: "all" | "listed", shape: LoadShape<M>): Effect.Effect<CachedLoad<M>, ModelLoadError> =>
  Effect.gen(function* () {
    // "listed": some models of the project (the compile index's changed ones): only their shards are
    // read and rewritten, keeping every entry already there (pruning is left to a whole load).
    const only = scope === "listed" ? new Set(listing.names.map(shardOf)) : undefined
    const trusted = options.cache !== false && (yield* CompileCacheReads)
    const loaded = trusted ? readCache(options.modelsDir, only) : emptyCache("off")
    const olds = loaded.shards.map((s) => s.body)
    const nexts = Array.from({ length: shardCount }, (_, shard) =>
      only !== undefined && only.has(shard) ? copyBody(olds[shard]!) : emptyBody()
    )
    /** Shards whose content differs from what was read (only those are written back). */
    const dirty = new Set<number>()
    for (let shard = 0; shard < shardCount; shard++) {
      if (loaded.shards[shard]!.status !== "hit" && (only === undefined || only.has(shard))) dirty.add(shard)
    }
    const writes = trusted && (yield* CompileCacheWrites)
    const trustBefore = Date.now() - (options.racyMarginMs ?? racyMarginMs)
    const counts = { filesRead: 0, sqlParsed: 0, decoded: 0 }
    const shards = listing.names.map(shardOf)
    // Started after trustBefore: every stat the worker takes is at least as late as a read here.
    const toRead = filesToRead(listing, shards, olds)
    const aheadIndex = toRead.order
    const readAhead =
      aheadIndex.size >= (options.readAhead?.minFiles ?? readAheadMinFiles)
        ? startReadAhead([...aheadIndex.keys()], toRead.kinds, options.readAhead)
        : undefined

    /** The text behind a file name and its content key, from the stat index when the stat is unchanged. */
    const known = (old: CacheBody, file: string, path: string): string | undefined => {
      if (!old.files.rows.has(file)) return undefined
      const stat = NodeFs.statSync(path, { throwIfNoEntry: false })
      return stat === undefined ? undefined : keyIfStamped(old.files, file, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino)
    }
    const remember = (shard: number, file: string, stat: FileStat, key: string) => {
      if (stat.mtimeMs < trustBefore && stat.ctimeMs < trustBefore) {
        const stamp: FileStamp = [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, key]
        putStamp(nexts[shard]!.files, file, stamp)
        const before = stampOf(olds[shard]!.files, file)
        if (before === undefined || before.some((v, k) => v !== stamp[k])) dirty.add(shard)
      }
    }
    /** A file's text and stat, read here or by the worker; undefined where only the plain reader can say why not. */
    const readNow = (path: string): Read | undefined => {
      counts.filesRead++
      const ahead = readAhead === undefined ? undefined : readAhead.take(aheadIndex.get(path) ?? -1, shape.ofSummary !== undefined)
      if (ahead !== undefined) {
        // A decoded sidecar that came as JSON is written into its shard as that JSON.
        if (ahead.workJson !== undefined && typeof ahead.work === "object" && ahead.work !== null) rememberJson(ahead.work, ahead.workJson)
        return ahead
      }
      const stamped = readStamped(path)
      return stamped === undefined ? undefined : { text: stamped.text, stat: stamped.stat, key: undefined, worked: false, work: undefined }
    }
    /** The plain reader's text, or its failure (once `readNow` found nothing). */
    const readPlain = (path: string): Effect.Effect<Read, ModelLoadError> =>
      Effect.map(readText(path), (text) => ({ text, stat: undefined, key: undefined, worked: false, work: undefined }))
    /** The cache key of a sidecar/contract text: its hash after `${VAR}` substitution. */
    const substitutedKey = (text: string, path: string) =>
      text.includes("${") ? Effect.map(substituteEnvVars(text, options.env, path), contentHash) : Effect.succeed(contentHash(text))
    const fileName = (name: string, suffix: string) => `${name}${suffix}`
    /** A sidecar or contract kept by its unchanged stamp (its file not read at all), if it is. */
    const keptByStamp = <T>(shard: number, file: string, path: string, kept: ReadonlyMap<string, T>): Decoded<T> | undefined => {
      const old = olds[shard]!
      const knownKey = known(old, file, path)
      const byStamp = knownKey === undefined ? undefined : kept.get(knownKey)
      if (byStamp === undefined) return undefined
      copyStamp(old.files, nexts[shard]!.files, file)
      return { value: byStamp, key: knownKey, text: undefined, decoded: false }
    }
    /**
     * A sidecar or contract read: kept by its content key, else decoded by the fast decoder; `value`
     * is undefined where only the plain decoder can read it (`${VAR}`, other shapes).
     */
    const keptOrFastDecoded = <T>(shard: number, file: string, kept: ReadonlyMap<string, T>, decode: (data: unknown) => T | undefined, read: Read): Decoded<T> => {
      const { text, stat, worked, work } = read
      // A text with `${VAR}` depends on the environment: it is read and substituted every time.
      if (text.includes("${")) return { value: undefined, key: undefined, text, decoded: false }
      const key = read.key ?? contentHash(text)
      if (stat !== undefined) remember(shard, file, stat, key)
      const byContent = kept.get(key)
      if (byContent !== undefined) return { value: byContent, key, text, decoded: false }
      dirty.add(shard)
      // Left as JSON by `take` (the shape needs the summary alone): decoded, but not parsed here.
      if (worked && work === undefined && read.summaryJson !== undefined && read.workJson !== undefined) {
        return { value: undefined, key, text, decoded: true, summary: JSON.parse(read.summaryJson) as SidecarSummary, json: read.workJson }
      }
      const value = worked ? (work as T | undefined) : quickDecode(decode, text)
      return { value, key, text, decoded: value !== undefined }
    }

    /** Whether the worker stays for the save once the files are read (else it stops with the load). */
    let workerSaves = false
    return yield* Effect.ensuring(
      Effect.gen(function* () {
        // Pass 1: every model's SQL text and references (from the cache or the fast reader).
        const sqls: Array<string> = new Array(listing.names.length)
        const refs = new Map<string, ReadonlyArray<TableRef>>()
        const deferred: Array<{ model: string; shard: number; sql: string; file: string; key: string; text: string }> = []
        for (let i = 0; i < listing.names.length; i++) {
          const model = listing.names[i]!
          const shard = shards[i]!
          const old = olds[shard]!
          const next = nexts[shard]!
          const path = listing.sqlPaths[i]!
          const file = fileName(model, ".sql")
          const knownKey = known(old, file, path)
          const cached: CachedSql | undefined = knownKey === undefined ? undefined : old.sql.get(knownKey)
          if (cached !== undefined && typeof cached.text === "string") {
            sqls[i] = cached.text
            refs.set(model, cached.refs)
            next.sql.set(knownKey!, cached)
            copyStamp(old.files, next.files, file)
            continue
          }
          const { text, stat, key: readKey, worked, work } = readNow(path) ?? (yield* readPlain(path))
          sqls[i] = text
          const key = readKey ?? contentHash(text)
          if (stat !== undefined) remember(shard, file, stat, key)
          const hit = old.sql.get(key)
          if (hit !== undefined && hit.text === text) {
            refs.set(model, hit.refs)
            next.sql.set(key, hit)
            continue
          }
          counts.sqlParsed++
          dirty.add(shard)
          // Read by the read-ahead worker: it ran the fast reader too.
          const fast = worked ? (work as ReadonlyArray<TableRef> | undefined) : quickReferences(text)
          if (fast === undefined) deferred.push({ model, shard, sql: parseableSql(text), file: path, key, text })
          else {
            refs.set(model, fast)
            next.sql.set(key, { text, refs: fast })
          }
        }
        // Forked first so DuckDB (loaded only now) parses on its threads while this one decodes sidecars.
        const parsing = deferred.length === 0 ? undefined : yield* Effect.fork(Effect.either(parseReferencesWithDuckDb(deferred)))

        // Pass 2: sidecars and contracts, in name order (the first failure is the first model's).
        const definitions = yield* Effect.either(
          Effect.gen(function* () {
            const out: Array<M> = new Array(listing.names.length)
            for (let i = 0; i < listing.names.length; i++) {
              const name = listing.names[i]!
              const shard = shards[i]!
              const old = olds[shard]!
              const next = nexts[shard]!
              const sidecarPath = listing.sidecarPaths[i]!
              const contractPath = listing.contractPaths[i]
              const sidecarFile = fileName(name, ".toml")
              const side =
                keptByStamp(shard, sidecarFile, sidecarPath, old.sidecars) ??
                keptOrFastDecoded(shard, sidecarFile, old.sidecars, fastDecodeSidecar, readNow(sidecarPath) ?? (yield* readPlain(sidecarPath)))
              if (side.decoded) counts.decoded++
              const contractFile = fileName(name, ".contract.toml")
              const cont =
                contractPath === undefined
                  ? undefined
                  : (keptByStamp(shard, contractFile, contractPath, old.contracts) ??
                    keptOrFastDecoded(shard, contractFile, old.contracts, fastDecodeContract, readNow(contractPath) ?? (yield* readPlain(contractPath))))
              const { value: sidecar, key: sidecarKey, text: sidecarText } = side
              const contract = cont?.value
              const contractKey = cont?.key
              const contractText = cont?.text
              const summary = side.summary
              if (summary !== undefined && shape.ofSummary !== undefined && summary[0] === name && (contractPath === undefined || contract !== undefined)) {
                // Its JSON, as the worker made it, is what the shard keeps.
                if (!next.sidecars.has(sidecarKey!)) next.sidecarJson.set(sidecarKey!, side.json!)
                if (contract !== undefined) next.contracts.set(contractKey!, contract)
                out[i] = shape.ofSummary(summary, contract !== undefined)
                continue
              }
              if (sidecar !== undefined && sidecar.name === name && (contractPath === undefined || contract !== undefined)) {
                next.sidecars.set(sidecarKey!, sidecar)
                if (contract !== undefined) next.contracts.set(contractKey!, contract)
                // The texts read here are what a build records; a definition kept by its stamp was not read (the runner reads it then).
                const read = sidecarText !== undefined && (contract === undefined || contractText !== undefined)
                const files = read ? { sql: sqls[i]!, sidecar: sidecarText, contract: contract === undefined ? null : contractText! } : undefined
                out[i] = shape.ofDefinition({ name, sql: sqls[i]!, sqlPath: listing.sqlPaths[i]!, sidecarPath, sidecar, contract, contractPath, files })
                continue
              }
              // Anything else (`${VAR}`, shapes only the Schema decoder reads, every error): the plain decoder.
              counts.decoded++
              dirty.add(shard)
              const fullSidecarText = sidecarText ?? (yield* readText(sidecarPath))
              const fullContractText = contractPath === undefined ? undefined : (contractText ?? (yield* readText(contractPath)))
              const def = yield* decodeModel({
                name,
                sql: sqls[i]!,
                sqlPath: listing.sqlPaths[i]!,
                sidecarText: fullSidecarText,
                sidecarPath,
                contractText: fullContractText,
                contractPath,
                env: options.env
              })
              next.sidecars.set(yield* substitutedKey(fullSidecarText, sidecarPath), def.sidecar)
              if (fullContractText !== undefined && contractPath !== undefined && def.contract !== undefined) {
                next.contracts.set(yield* substitutedKey(fullContractText, contractPath), def.contract)
              }
              out[i] = shape.ofDefinition(def)
            }
            return out as ReadonlyArray<M>
          })
        )
        const fresh = parsing === undefined ? Either.right(new Map<string, ReadonlyArray<TableRef>>()) : yield* Fiber.join(parsing)
        const parsed = Either.map(fresh, (map) => {
          for (const miss of deferred) {
            const found = map.get(miss.model)
            if (found !== undefined) {
              refs.set(miss.model, found)
              nexts[miss.shard]!.sql.set(miss.key, { text: miss.text, refs: found })
            }
          }
          return refs as ReadonlyMap<string, ReadonlyArray<TableRef>>
        })
        const size = entryCount
        // A shard that lost entries (a model removed or edited) is rewritten too, so it is pruned.
        for (let shard = 0; shard < shardCount; shard++) if (size(olds[shard]!) !== size(nexts[shard]!)) dirty.add(shard)
        // An absent shard that stays empty needs no file.
        for (const shard of dirty) if (loaded.shards[shard]!.status === "absent" && size(nexts[shard]!) === 0) dirty.delete(shard)
        workerSaves = readAhead !== undefined && writes && dirty.size > 0 && Either.isRight(definitions) && Either.isRight(parsed)
        const result: CachedLoad<M> = {
          definitions,
          parsed,
          use: {
            cache: loaded.status,
            sqlParsed: counts.sqlParsed,
            sqlParsedByDuckDb: deferred.length,
            sidecarsDecoded: counts.decoded,
            filesRead: counts.filesRead
          },
          stampOf: (model, suffix) => stampOf(nexts[shardOf(model)]!.files, `${model}${suffix}`),
          save: Effect.sync(() => {
            if (!trusted || dirty.size === 0) {
              readAhead?.close()
              return Effect.void
            }
            const shards = [...dirty].sort((a, b) => a - b)
            const write = () => writeShardFiles(options.modelsDir, shardsToWrite(new Map(shards.map((shard) => [shard, nexts[shard]!]))))
            // Shard by shard: each stored form is made just before it is posted, and written by the worker meanwhile.
            const messages = function* () {
              for (let k = 0; k < shards.length; k++) {
                const shard = shards[k]!
                yield { modelsDir: options.modelsDir, build: cacheBuild, shards: [[shard, storedPartsOrNone(nexts[shard]!)] as const], last: k === shards.length - 1 }
              }
            }
            if (readAhead !== undefined && readAhead.saveShards(messages())) {
              return Effect.sync(() => {
                // A worker that wrote them ends on its own (stopping it would hold this process's exit until it is down).
                if (readAhead.awaitSaved() === "written") return
                readAhead.close()
                write()
              })
            }
            readAhead?.close()
            write()
            return Effect.void
          })
        }
        return result
      }),
      // A worker that will write the shards stays; any other stops here.
      Effect.sync(() => (workerSaves ? readAhead?.stopReading() : readAhead?.close()))
    )
  })
