import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { generate } from "selfsigned"

export interface LoopbackCertificate {
  /** PEM of the test CA that signed `certPem`; trust this one. */
  readonly caPem: string
  /** `caPem` written to a temp file, for `NODE_EXTRA_CA_CERTS`. */
  readonly caFile: string
  readonly certPem: string
  readonly keyPem: string
}

const days = (n: number) => new Date(Date.now() + n * 86_400_000)

/**
 * A throwaway CA and a server certificate it signed for 127.0.0.1, ::1 and localhost,
 * so emulators can serve real HTTPS on loopback.
 */
export const generateLoopbackCertificate = async (): Promise<LoopbackCertificate> => {
  const ca = await generate([{ name: "commonName", value: "pcli test CA" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: days(-1),
    notAfterDate: days(30),
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true }
    ]
  })
  const server = await generate([{ name: "commonName", value: "127.0.0.1" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate: days(-1),
    notAfterDate: days(30),
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
          { type: 2, value: "localhost" }
        ]
      }
    ]
  })
  const dir = mkdtempSync(join(tmpdir(), "pcli-tls-"))
  const caFile = join(dir, "ca.pem")
  writeFileSync(caFile, ca.cert)
  return { caPem: ca.cert, caFile, certPem: server.cert, keyPem: server.private }
}
