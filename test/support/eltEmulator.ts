/**
 * A loopback emulator of the connector-sync API (the subset discover uses): HTTP Basic,
 * `{code,data,message}` wrapper, `GET /v1/destinations/{id}`, `GET /v1/groups/{id}/connectors`
 * with cursor pagination, `GET /v1/connectors/{id}/schemas`. Knobs: per-request latency,
 * page size, injected 429s (with Retry-After) and 404 schema configs. Counts requests per route.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface EmulatedConnector {
  readonly id: string
  readonly group_id: string
  readonly service: string
  readonly schema: string
  readonly status: { readonly setup_state: string; readonly sync_state: string }
  readonly paused?: boolean
  readonly succeeded_at?: string | null
  readonly failed_at?: string | null
  readonly name?: string
}

export interface EmulatedTable {
  readonly enabled: boolean
  readonly name_in_destination?: string
  readonly sync_mode?: string
  readonly columns?: Record<string, { enabled: boolean; hashed: boolean }>
}

export interface EmulatedSchemas {
  readonly schemas: Record<string, { enabled: boolean; name_in_destination?: string; tables: Record<string, EmulatedTable> }>
}

export interface EmulatedTenant {
  readonly apiKey: string
  readonly apiSecret: string
  readonly destinationId: string
  connectors: Array<EmulatedConnector>
  /** Missing id → 404 NotFound_SchemaConfig. */
  schemas: Record<string, EmulatedSchemas>
}

export type Route = "destination" | "connectors" | "schemas"

export interface EltEmulator {
  readonly baseUrl: string
  readonly tenants: Map<string, EmulatedTenant>
  latencyMs: number
  pageSize: number
  /** Counts of answered requests per route (including 429s). */
  readonly counts: Record<Route, number>
  /** How many 429s were served. */
  throttled: number
  /** The next `n` requests answer 429 with this Retry-After header value. */
  inject429: (n: number, retryAfter?: string) => void
  /** Total requests. */
  total: () => number
  resetCounts: () => void
  /** Most requests in flight at the same moment. */
  maxInFlight: number
  close: () => Promise<void>
}

/** A tenant with `n` connected connectors, each with two schemas of two tables. */
export const makeTenant = (apiKey: string, destinationId: string, n: number, apiSecret = "s3cr3t-value"): EmulatedTenant => {
  const connectors: Array<EmulatedConnector> = []
  const schemas: Record<string, EmulatedSchemas> = {}
  for (let i = 0; i < n; i++) {
    const id = `conn_${String(i).padStart(3, "0")}`
    connectors.push({
      id,
      group_id: destinationId,
      service: i % 2 === 0 ? "postgres" : "salesforce",
      schema: `src_${i}`,
      status: { setup_state: i % 7 === 6 ? "incomplete" : "connected", sync_state: "scheduled" },
      paused: false,
      succeeded_at: "2026-01-02T03:04:05.000+00:00",
      failed_at: null,
      name: `source ${i}`
    })
    schemas[id] = {
      schemas: {
        public: {
          enabled: true,
          name_in_destination: `src_${i}`,
          tables: {
            Orders: { enabled: true, name_in_destination: "orders", sync_mode: "SOFT_DELETE", columns: { id: { enabled: true, hashed: false } } },
            customers: { enabled: true, columns: { email: { enabled: true, hashed: true } } },
            audit_log: { enabled: false }
          }
        },
        archive: { enabled: false, tables: { old: { enabled: true } } }
      }
    }
  }
  return { apiKey, apiSecret, destinationId, connectors, schemas }
}

export const startEltEmulator = async (options: { latencyMs?: number; pageSize?: number } = {}): Promise<EltEmulator> => {
  const tenants = new Map<string, EmulatedTenant>()
  const counts: Record<Route, number> = { destination: 0, connectors: 0, schemas: 0 }
  let pending429: { n: number; retryAfter: string | undefined } = { n: 0, retryAfter: undefined }
  let inFlight = 0

  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }

  const server = http.createServer((req, res) => {
    inFlight += 1
    emulator.maxInFlight = Math.max(emulator.maxInFlight, inFlight)
    res.on("close", () => {
      inFlight -= 1
    })
    setTimeout(() => handle(req, res), emulator.latencyMs)
  })

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const parts = url.pathname.split("/").filter((p) => p !== "").map(decodeURIComponent)
    const route: Route | undefined =
      parts[0] !== "v1"
        ? undefined
        : parts[1] === "destinations" && parts.length === 3
          ? "destination"
          : parts[1] === "groups" && parts[3] === "connectors" && parts.length === 4
            ? "connectors"
            : parts[1] === "connectors" && parts[3] === "schemas" && parts.length === 4
              ? "schemas"
              : undefined
    if (route === undefined || req.method !== "GET") return send(res, 404, { code: "NotFound", message: "no route" })
    counts[route] += 1
    if (pending429.n > 0) {
      pending429.n -= 1
      emulator.throttled += 1
      return send(res, 429, { code: "TooManyRequests", message: "slow down" }, pending429.retryAfter === undefined ? {} : { "retry-after": pending429.retryAfter })
    }
    const auth = req.headers.authorization ?? ""
    const [user, pass] = Buffer.from(auth.replace(/^Basic /, ""), "base64").toString("utf8").split(":")
    const tenant = [...tenants.values()].find((t) => t.apiKey === user && t.apiSecret === pass)
    if (tenant === undefined) return send(res, 401, { code: "AuthFailed", message: "bad credentials" })
    const id = parts[2] ?? ""
    switch (route) {
      case "destination":
        if (id !== tenant.destinationId) return send(res, 404, { code: "NotFound_Destination", message: id })
        return send(res, 200, { code: "Success", data: { id, region: "GCP_US_EAST4", time_zone: "UTC", service: "warehouse", setup_status: "connected" } })
      case "connectors": {
        if (id !== tenant.destinationId) return send(res, 404, { code: "NotFound_Group", message: id })
        const limit = Math.min(Number(url.searchParams.get("limit") ?? "100"), emulator.pageSize)
        const start = Number(url.searchParams.get("cursor") ?? "0")
        const items = tenant.connectors.slice(start, start + limit)
        const next = start + limit < tenant.connectors.length ? String(start + limit) : null
        return send(res, 200, { code: "Success", data: { items, next_cursor: next } })
      }
      case "schemas": {
        const schemas = tenant.schemas[id]
        if (schemas === undefined) return send(res, 404, { code: "NotFound_SchemaConfig", message: id })
        return send(res, 200, { code: "Success", data: schemas })
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const emulator: EltEmulator = {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    tenants,
    latencyMs: options.latencyMs ?? 0,
    pageSize: options.pageSize ?? 100,
    counts,
    throttled: 0,
    maxInFlight: 0,
    inject429: (n, retryAfter) => {
      pending429 = { n, retryAfter }
    },
    total: () => counts.destination + counts.connectors + counts.schemas,
    resetCounts: () => {
      counts.destination = 0
      counts.connectors = 0
      counts.schemas = 0
      emulator.throttled = 0
      emulator.maxInFlight = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return emulator
}

export const addTenant = (emulator: EltEmulator, tenant: EmulatedTenant) => {
  emulator.tenants.set(tenant.apiKey, tenant)
  return tenant
}
