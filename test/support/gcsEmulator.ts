/**
 * A small Google Cloud Storage JSON-API emulator on loopback, enough for the discover cache:
 *   - objects.insert via `POST /upload/storage/v1/b/{bucket}/o?uploadType=media|multipart&name=…`
 *     (multipart/related: JSON resource part + media part; a given `md5Hash` is verified → 400),
 *   - objects.get metadata `GET [/storage/v1]/b/{bucket}/o/{object}` (md5Hash, etag, metadata, size…),
 *   - objects.get media `GET …?alt=media`,
 *   - objects.list `GET [/storage/v1]/b/{bucket}/o?prefix=…` (one page),
 *   - the `ifGenerationMatch` precondition on insert (0 = "no live object"; mismatch → 412).
 * Buckets exist when named at start; unknown bucket/object → 404 JSON error. No auth, no ACLs,
 * no resumable uploads, no deletes. Counts inserts.
 * (Paths accept both `/storage/v1/b/…` and `/b/…`: the client uses STORAGE_EMULATOR_HOST as its
 * base URL verbatim.)
 */
import { createHash } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

interface StoredObject {
  readonly bytes: Buffer
  readonly contentType: string
  readonly metadata: Record<string, string>
  readonly md5Hash: string
  readonly generation: number
}

export interface GcsEmulator {
  readonly host: string
  readonly inserts: Array<string>
  readonly objects: Map<string, StoredObject>
  readonly unhandled: Array<string>
  /** While true, every insert answers 503 (reads and listings still work). */
  failInserts: boolean
  readonly close: () => Promise<void>
}

const readBody = (req: http.IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

/** multipart/related → [json resource, media bytes]. */
const parseMultipart = (body: Buffer, contentType: string): [Record<string, unknown>, Buffer] | undefined => {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1]
  if (boundary === undefined) return undefined
  const text = body.toString("latin1")
  const parts = text
    .split(`--${boundary}`)
    .slice(1)
    .filter((p) => !p.startsWith("--"))
    .map((p) => {
      const split = p.indexOf("\r\n\r\n")
      const head = p.slice(0, split)
      let content = p.slice(split + 4)
      if (content.endsWith("\r\n")) content = content.slice(0, -2)
      return { head, content: Buffer.from(content, "latin1") }
    })
  const [meta, media] = parts
  if (meta === undefined || media === undefined) return undefined
  return [JSON.parse(meta.content.toString("utf8")) as Record<string, unknown>, media.content]
}

export const startGcsEmulator = async (buckets: ReadonlyArray<string>): Promise<GcsEmulator> => {
  const objects = new Map<string, StoredObject>()
  const inserts: Array<string> = []
  const unhandled: Array<string> = []
  let generation = 1
  const handle: { -readonly [K in keyof GcsEmulator]: GcsEmulator[K] } = {
    host: "",
    inserts,
    objects,
    unhandled,
    failInserts: false,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
  }
  const notFound = (res: http.ServerResponse, what: string) => json(res, 404, { error: { code: 404, message: `${what} not found`, errors: [{ reason: "notFound" }] } })
  const resource = (bucket: string, name: string, o: StoredObject) => ({
    kind: "storage#object",
    id: `${bucket}/${name}/${o.generation}`,
    name,
    bucket,
    generation: String(o.generation),
    metageneration: "1",
    contentType: o.contentType,
    size: String(o.bytes.length),
    md5Hash: o.md5Hash,
    etag: `C${o.generation}`,
    metadata: o.metadata
  })

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const body = await readBody(req)
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname)
    if (req.method === "POST" && upload !== null) {
      if (handle.failInserts) return json(res, 503, { error: { code: 503, message: "Service Unavailable (emulated outage)" } })
      const bucket = decodeURIComponent(upload[1] ?? "")
      if (!buckets.includes(bucket)) return notFound(res, `bucket ${bucket}`)
      const uploadType = url.searchParams.get("uploadType")
      let meta: Record<string, unknown> = {}
      let media = body
      if (uploadType === "multipart") {
        const parsed = parseMultipart(body, req.headers["content-type"] ?? "")
        if (parsed === undefined) return json(res, 400, { error: { code: 400, message: "bad multipart body" } })
        ;[meta, media] = parsed
      } else if (uploadType !== "media") {
        unhandled.push(`${req.method} ${req.url} (uploadType)`)
        return json(res, 400, { error: { code: 400, message: `uploadType ${uploadType} not emulated` } })
      }
      const name = url.searchParams.get("name") ?? (typeof meta.name === "string" ? meta.name : "")
      const md5Hash = createHash("md5").update(media).digest("base64")
      const ifGeneration = url.searchParams.get("ifGenerationMatch")
      if (ifGeneration !== null && String(objects.get(`${bucket}/${name}`)?.generation ?? 0) !== ifGeneration) {
        return json(res, 412, { error: { code: 412, message: "At least one of the pre-conditions you specified did not hold.", errors: [{ reason: "conditionNotMet" }] } })
      }
      if (typeof meta.md5Hash === "string" && meta.md5Hash !== md5Hash) {
        return json(res, 400, { error: { code: 400, message: "Provided MD5 hash does not match calculated MD5 hash" } })
      }
      const stored: StoredObject = {
        bytes: media,
        contentType: typeof meta.contentType === "string" ? meta.contentType : (req.headers["content-type"] ?? "application/octet-stream"),
        metadata: (meta.metadata ?? {}) as Record<string, string>,
        md5Hash,
        generation: generation++
      }
      objects.set(`${bucket}/${name}`, stored)
      inserts.push(name)
      return json(res, 200, resource(bucket, name, stored))
    }
    const list = /^(?:\/storage\/v1)?\/b\/([^/]+)\/o$/.exec(url.pathname)
    if (req.method === "GET" && list !== null) {
      const bucket = decodeURIComponent(list[1] ?? "")
      if (!buckets.includes(bucket)) return notFound(res, `bucket ${bucket}`)
      const prefix = url.searchParams.get("prefix") ?? ""
      const items = [...objects.entries()]
        .filter(([k]) => k.startsWith(`${bucket}/${prefix}`))
        .map(([k, o]) => resource(bucket, k.slice(bucket.length + 1), o))
        .sort((a, b) => (a.name < b.name ? -1 : 1))
      return json(res, 200, { kind: "storage#objects", items })
    }
    const get = /^(?:\/storage\/v1)?\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname)
    if (req.method === "GET" && get !== null) {
      const bucket = decodeURIComponent(get[1] ?? "")
      const name = decodeURIComponent(get[2] ?? "")
      if (!buckets.includes(bucket)) return notFound(res, `bucket ${bucket}`)
      const o = objects.get(`${bucket}/${name}`)
      if (o === undefined) return notFound(res, `object ${name}`)
      if (url.searchParams.get("alt") === "media") {
        res.writeHead(200, { "content-type": o.contentType, "content-length": String(o.bytes.length), "x-goog-hash": `md5=${o.md5Hash}` })
        return res.end(o.bytes)
      }
      return json(res, 200, resource(bucket, name, o))
    }
    unhandled.push(`${req.method} ${req.url}`)
    return json(res, 501, { error: { code: 501, message: "not emulated" } })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  handle.host = `http://127.0.0.1:${port}`
  return handle
}
