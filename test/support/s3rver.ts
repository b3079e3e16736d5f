/** s3rver (S3 protocol) on loopback through its programmatic API; counts object PUTs it served. */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import type { AddressInfo } from "node:net"

interface S3rverInstance {
  run(): Promise<AddressInfo>
  close(): Promise<void>
  on(event: "event", listener: (e: { Records: Array<{ eventName: string; s3: { object: { key: string } } }> }) => void): void
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance

export interface S3Handle {
  readonly endpoint: string
  readonly bucket: string
  /** Object keys of every PUT s3rver stored, in order. */
  readonly puts: Array<string>
  readonly stop: () => Promise<void>
}

export const startS3rver = async (bucket = "pcli-cache"): Promise<S3Handle> => {
  const require = createRequire(import.meta.url)
  const S3rver = require("s3rver") as S3rverCtor
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "pcli-s3rver-"))
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] })
  const puts: Array<string> = []
  server.on("event", (e) => {
    for (const r of e.Records) if (r.eventName.startsWith("ObjectCreated")) puts.push(r.s3.object.key)
  })
  const address = await server.run()
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    puts,
    stop: async () => {
      await server.close()
      fs.rmSync(directory, { recursive: true, force: true })
    }
  }
}
