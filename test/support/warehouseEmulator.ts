import { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:https"
import type { AddressInfo } from "node:net"
import { generateLoopbackCertificate, type LoopbackCertificate } from "./tls"

/**
 * A loopback HTTPS stand-in for the SQL warehouse: OAuth token endpoint, statement
 * execution on an in-memory DuckDB, Unity-Catalog-style table and binding routes, and
 * fault injection. Every request is counted by route.
 */

export type Route = "token" | "submit" | "poll" | "cancel" | "chunk" | "unknown"
  | "tables.get" | "tables.list" | "tables.delete" | "bindings.get" | "bindings.patch" | "catalogs.patch"

export interface EmulatorOptions {
  /** Personal access tokens the warehouse accepts. */
  readonly personalTokens?: ReadonlyArray<string>
  /** OAuth clients: id → secret. */
  readonly clients?: Readonly<Record<string, string>>
  /** `expires_in` of issued tokens (they really expire then). Default 3600. */
  readonly tokenLifetimeSeconds?: number
  /** Rows per result chunk. Default 1000. */
  readonly chunkRows?: number
  /** Tables per page of the list route. Default 100. */
  readonly tablePageSize?: number
  /** Reuse a certificate (a bench starting several emulators). */
  readonly certificate?: LoopbackCertificate
}

export interface Faults {
  /** Every statement sleeps this long before it runs. */
  statementDelayMs: number
  /** The next n API calls answer 429 with this Retry-After (seconds). */
  throttle(n: number, retryAfterSeconds: number): void
  /** The next n API calls answer this 5xx status. */
  serverErrors(n: number, status?: number): void
  /** The next n API calls have their connection destroyed. */
  resetConnections(n: number): void
  /** Every token issued so far now answers 401 (or 403 "Invalid Token", as some SQL endpoints do). */
  expireIssuedTokens(status?: 401 | 403): void
  /** How the token endpoint behaves. */
  tokenEndpoint: "ok" | "server-error" | "missing-fields"
}

export interface StatementRecord {
  readonly id: string
  readonly sql: string
  state: "PENDING" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELED"
  error?: { error_code: string; message: string }
  columns?: ReadonlyArray<{ name: string; type_name: string; position: number }>
  rows?: ReadonlyArray<ReadonlyArray<string | null>>
  readonly done: Promise<void>
}

export interface WarehouseEmulator {
  /** `127.0.0.1:PORT`, the adapter's `host`. */
  readonly host: string
  readonly httpPath: string
  readonly certificate: LoopbackCertificate
  readonly faults: Faults
  /** Requests per route (429/5xx/reset answers included). */
  readonly count: (route: Route) => number
  /** 401 answers given. */
  readonly unauthorizedCount: () => number
  readonly statements: () => ReadonlyArray<StatementRecord>
  readonly resetCounts: () => void
  /** Runs SQL directly on the emulator's DuckDB (test fixtures). */
  readonly query: (sql: string) => Promise<ReadonlyArray<ReadonlyArray<unknown>>>
  readonly close: () => Promise<void>
}

const duckTypeToWarehouse = (duckType: string): string => {
  const t = duckType.toUpperCase()
  if (t.startsWith("DECIMAL")) return "DECIMAL"
  const map: Record<string, string> = { INTEGER: "INT", BIGINT: "LONG", HUGEINT: "DECIMAL", SMALLINT: "SHORT",
    TINYINT: "BYTE", VARCHAR: "STRING", DOUBLE: "DOUBLE", FLOAT: "FLOAT", BOOLEAN: "BOOLEAN", DATE: "DATE",
    TIMESTAMP: "TIMESTAMP" }
  return map[t] ?? "STRING"
}

/** Warehouse SQL dialect → DuckDB: backtick identifiers, catalogs as attached in-memory databases. */
const toDuckSql = (sql: string) =>
  sql
    .replace(/`((?:[^`]|``)*)`/g, (_m, name: string) => `"${name.replace(/``/g, "`").replace(/"/g, '""')}"`)
    .replace(/^\s*CREATE\s+CATALOG\s+IF\s+NOT\s+EXISTS\s+("(?:[^"]|"")*"|\w+)\s*;?\s*$/i, "ATTACH IF NOT EXISTS ':memory:' AS $1")

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    req.on("error", reject)
  })

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  res.end(text)
}

export const startWarehouseEmulator = async (options: EmulatorOptions = {}): Promise<WarehouseEmulator> => {
  const certificate = options.certificate ?? (await generateLoopbackCertificate())
  const instance = await DuckDBInstance.create(":memory:")
  const connection = await DuckDBConnection.create(instance)
  // A workspace comes with a `workspace` catalog, as the warehouse it stands in for does (DuckDB reserves `main`).
  await connection.run("ATTACH ':memory:' AS workspace")
  await connection.run("USE workspace")
  const chunkRows = options.chunkRows ?? 1000
  const tablePageSize = options.tablePageSize ?? 100
  const personalTokens = new Set(options.personalTokens ?? [])
  const clients = options.clients ?? {}
  const lifetime = options.tokenLifetimeSeconds ?? 3600

  const counts = new Map<Route, number>()
  let unauthorized = 0
  const issued = new Map<string, number>() // token → expiry (epoch ms)
  const records = new Map<string, StatementRecord & { canceled: boolean }>()
  const bindings = new Map<string, Map<number, string>>()
  const isolation = new Map<string, string>()
  const pending = { throttle: 0, retryAfter: 1, serverErrors: 0, status: 503, resets: 0, rejectStatus: 401 }

  // DuckDB runs one statement at a time on this connection, like a single-slot warehouse.
  let queue: Promise<unknown> = Promise.resolve()
  const runSql = (sql: string) => {
    const run = queue.then(() => connection.runAndReadAll(sql))
    queue = run.catch(() => undefined)
    return run
  }

  const faults: Faults = {
    statementDelayMs: 0,
    tokenEndpoint: "ok",
    throttle: (n, retryAfterSeconds) => {
      pending.throttle = n
      pending.retryAfter = retryAfterSeconds
    },
    serverErrors: (n, status = 503) => {
      pending.serverErrors = n
      pending.status = status
    },
    resetConnections: (n) => {
      pending.resets = n
    },
    expireIssuedTokens: (status = 401) => {
      pending.rejectStatus = status
      for (const token of issued.keys()) issued.set(token, 0)
    }
  }

  const execute = (record: StatementRecord & { canceled: boolean }) => {
    const work = async () => {
      if (faults.statementDelayMs > 0) await sleep(faults.statementDelayMs)
      if (record.canceled) return
      record.state = "RUNNING"
      try {
        const reader = await runSql(toDuckSql(record.sql))
        if (record.canceled) return
        const names = reader.columnNames()
        const types = reader.columnTypes()
        record.columns = names.map((name, i) => ({
          name,
          type_name: duckTypeToWarehouse(String(types[i] ?? "VARCHAR")),
          position: i
        }))
        record.rows = reader.getRowsJson().map((row) => row.map((v) => (v === null ? null : typeof v === "object" ? JSON.stringify(v) : String(v))))
        record.state = "SUCCEEDED"
      } catch (error) {
        if (record.canceled) return
        record.state = "FAILED"
        record.error = { error_code: "BAD_REQUEST", message: error instanceof Error ? error.message : String(error) }
      }
    }
    return work()
  }

  const chunkOf = (record: StatementRecord, index: number) => {
    const rows = record.rows ?? []
    const total = Math.max(1, Math.ceil(rows.length / chunkRows))
    const data = rows.slice(index * chunkRows, (index + 1) * chunkRows)
    return {
      chunk_index: index,
      row_offset: index * chunkRows,
      row_count: data.length,
      data_array: data,
      ...(index + 1 < total ? { next_chunk_index: index + 1 } : {})
    }
  }

  const statementBody = (record: StatementRecord) => {
    const base = {
      statement_id: record.id,
      status: { state: record.state, ...(record.error === undefined ? {} : { error: record.error }) }
    }
    if (record.state !== "SUCCEEDED") return base
    const rows = record.rows ?? []
    return {
      ...base,
      manifest: {
        format: "JSON_ARRAY",
        schema: { column_count: record.columns?.length ?? 0, columns: record.columns ?? [] },
        total_chunk_count: Math.max(1, Math.ceil(rows.length / chunkRows)),
        total_row_count: rows.length
      },
      result: chunkOf(record, 0)
    }
  }

  const routeOf = (method: string, path: string): Route => {
    if (path === "/oidc/v1/token" && method === "POST") return "token"
    if (path === "/api/2.0/sql/statements" && method === "POST") return "submit"
    if (/^\/api\/2\.0\/sql\/statements\/[^/]+$/.test(path) && method === "GET") return "poll"
    if (/^\/api\/2\.0\/sql\/statements\/[^/]+\/cancel$/.test(path) && method === "POST") return "cancel"
    if (/^\/api\/2\.0\/sql\/statements\/[^/]+\/result\/chunks\/\d+$/.test(path) && method === "GET") return "chunk"
    if (path === "/api/2.1/unity-catalog/tables" && method === "GET") return "tables.list"
    if (/^\/api\/2\.1\/unity-catalog\/tables\/[^/]+$/.test(path)) return method === "DELETE" ? "tables.delete" : "tables.get"
    if (/^\/api\/2\.1\/unity-catalog\/bindings\/catalog\/[^/]+$/.test(path))
      return method === "PATCH" ? "bindings.patch" : "bindings.get"
    if (/^\/api\/2\.1\/unity-catalog\/catalogs\/[^/]+$/.test(path) && method === "PATCH") return "catalogs.patch"
    return "unknown"
  }

  const handleToken = async (req: IncomingMessage, res: ServerResponse) => {
    const form = new URLSearchParams(await readBody(req))
    if (faults.tokenEndpoint === "server-error") return send(res, 500, { error: "temporarily_unavailable" })
    const id = form.get("client_id") ?? ""
    if (
      form.get("grant_type") !== "client_credentials" ||
      form.get("scope") !== "all-apis" ||
      clients[id] === undefined ||
      clients[id] !== form.get("client_secret")
    ) {
      return send(res, 401, { error: "invalid_client", error_description: "Client authentication failed" })
    }
    const token = `emu-${randomUUID()}`
    issued.set(token, Date.now() + lifetime * 1000)
    if (faults.tokenEndpoint === "missing-fields") return send(res, 200, { access_token: token, token_type: "Bearer" })
    return send(res, 200, { access_token: token, token_type: "Bearer", expires_in: lifetime, scope: "all-apis" })
  }

  const authorized = (req: IncomingMessage) => {
    const header = req.headers.authorization ?? ""
    const token = header.startsWith("Bearer ") ? header.slice(7) : ""
    if (personalTokens.has(token)) return true
    const expiry = issued.get(token)
    return expiry !== undefined && expiry > Date.now()
  }

  const waitSeconds = (text: unknown) => {
    const match = typeof text === "string" ? /^(\d+)s$/.exec(text) : null
    return match === null ? 10 : Number(match[1])
  }

  const handleApi = async (route: Route, path: string, url: URL, req: IncomingMessage, res: ServerResponse) => {
    const text = await readBody(req)
    const body: Record<string, unknown> = text.length > 0 ? JSON.parse(text) : {}
    const segments = path.split("/")
    switch (route) {
      case "submit": {
        const record = { id: randomUUID(), sql: String(body.statement ?? ""), state: "PENDING", canceled: false } as
          StatementRecord & { canceled: boolean }
        Object.assign(record, { done: execute(record) })
        records.set(record.id, record)
        const wait = waitSeconds(body.wait_timeout)
        if (wait > 0) await Promise.race([record.done, sleep(wait * 1000)])
        return send(res, 200, statementBody(record))
      }
      case "poll": {
        const record = records.get(decodeURIComponent(segments[5] ?? ""))
        return record === undefined
          ? send(res, 404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: "no such statement" })
          : send(res, 200, statementBody(record))
      }
      case "cancel": {
        const record = records.get(decodeURIComponent(segments[5] ?? ""))
        if (record === undefined) return send(res, 404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: "no such statement" })
        if (record.state === "PENDING" || record.state === "RUNNING") {
          record.canceled = true
          record.state = "CANCELED"
        }
        return send(res, 200, {})
      }
      case "chunk": {
        const record = records.get(decodeURIComponent(segments[5] ?? ""))
        const index = Number(segments[8])
        return record === undefined || record.state !== "SUCCEEDED"
          ? send(res, 404, { error_code: "RESOURCE_DOES_NOT_EXIST", message: "no such result" })
          : send(res, 200, chunkOf(record, index))
      }
      case "tables.list": {
        const catalog = url.searchParams.get("catalog_name") ?? ""
        const schema = url.searchParams.get("schema_name") ?? ""
        const offset = Number(url.searchParams.get("page_token") ?? "0")
        const reader = await runSql(
          `SELECT table_name FROM information_schema.tables WHERE table_catalog = '${catalog.replace(/'/g, "''")}' AND table_schema = '${schema.replace(/'/g, "''")}' ORDER BY table_name`
        )
        const names = reader.getRowsJson().map((row) => String(row[0]))
        const page = names.slice(offset, offset + tablePageSize)
        return send(res, 200, {
          tables: page.map((name) => ({ name, catalog_name: catalog, schema_name: schema, full_name: `${catalog}.${schema}.${name}`, table_type: "MANAGED" })),
          ...(offset + tablePageSize < names.length ? { next_page_token: String(offset + tablePageSize) } : {})
        })
      }
      case "tables.get":
      case "tables.delete": {
        const parts = (segments[5] ?? "").split(".").map(decodeURIComponent)
        const [catalog = "", schema = "", table = ""] = parts
        const q = (s: string) => `'${s.replace(/'/g, "''")}'`
        const reader = await runSql(
          `SELECT count(*) FROM information_schema.tables WHERE table_catalog = ${q(catalog)} AND table_schema = ${q(schema)} AND table_name = ${q(table)}`
        )
        if (Number(reader.getRowsJson()[0]?.[0] ?? 0) === 0) {
          return send(res, 404, { error_code: "TABLE_DOES_NOT_EXIST", message: `Table '${parts.join(".")}' does not exist.` })
        }
        if (route === "tables.delete") {
          const id = (s: string) => `"${s.replace(/"/g, '""')}"`
          await runSql(`DROP TABLE ${id(catalog)}.${id(schema)}.${id(table)}`)
          return send(res, 200, {})
        }
        return send(res, 200, { name: table, catalog_name: catalog, schema_name: schema, full_name: parts.join("."), table_type: "MANAGED" })
      }
      case "bindings.get":
      case "bindings.patch": {
        const catalog = decodeURIComponent(segments[6] ?? "")
        const current = bindings.get(catalog) ?? new Map<number, string>()
        bindings.set(catalog, current)
        if (route === "bindings.patch") {
          for (const add of (body.add as Array<{ workspace_id: number; binding_type?: string }> | undefined) ?? []) {
            current.set(add.workspace_id, add.binding_type ?? "BINDING_TYPE_READ_WRITE")
          }
          for (const remove of (body.remove as Array<{ workspace_id: number }> | undefined) ?? []) current.delete(remove.workspace_id)
        }
        return send(res, 200, {
          bindings: [...current.entries()].map(([workspace_id, binding_type]) => ({ workspace_id, binding_type }))
        })
      }
      case "catalogs.patch": {
        const catalog = decodeURIComponent(segments[5] ?? "")
        if (typeof body.isolation_mode === "string") isolation.set(catalog, body.isolation_mode)
        return send(res, 200, { name: catalog, isolation_mode: isolation.get(catalog) ?? "OPEN" })
      }
      default:
        return send(res, 404, { error_code: "ENDPOINT_NOT_FOUND", message: `no route ${req.method} ${path}` })
    }
  }

  const server = createServer({ key: certificate.keyPem, cert: certificate.certPem }, (req, res) => {
    const url = new URL(req.url ?? "/", "https://emulator")
    const route = routeOf(req.method ?? "GET", url.pathname)
    counts.set(route, (counts.get(route) ?? 0) + 1)
    const handle = async () => {
      if (route === "token") return handleToken(req, res)
      if (pending.resets > 0) {
        pending.resets--
        req.socket.destroy()
        return
      }
      if (pending.throttle > 0) {
        pending.throttle--
        return send(res, 429, { error_code: "REQUEST_LIMIT_EXCEEDED", message: "rate limited" }, { "retry-after": String(pending.retryAfter) })
      }
      if (pending.serverErrors > 0) {
        pending.serverErrors--
        return send(res, pending.status, { error_code: "TEMPORARILY_UNAVAILABLE", message: "try again" })
      }
      if (!authorized(req)) {
        unauthorized++
        return send(res, pending.rejectStatus, { error_code: "UNAUTHENTICATED", message: "Invalid Token" })
      }
      return handleApi(route, url.pathname, url, req, res)
    }
    handle().catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error_code: "INTERNAL_ERROR", message: String(error) })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port

  return {
    host: `127.0.0.1:${port}`,
    httpPath: "/sql/1.0/warehouses/emu0001",
    certificate,
    faults,
    count: (route) => counts.get(route) ?? 0,
    unauthorizedCount: () => unauthorized,
    statements: () => [...records.values()],
    resetCounts: () => {
      counts.clear()
      unauthorized = 0
    },
    query: async (sql) => (await runSql(sql)).getRowsJson(),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      connection.closeSync()
      instance.closeSync()
    }
  }
}
