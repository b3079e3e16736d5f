import * as net from "node:net"

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** True when something accepts TCP connections on host:port within `timeoutMs`. */
export const isListening = (port: number, host = "127.0.0.1", timeoutMs = 500): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ port, host })
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(timeoutMs, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

/** Polls until the port accepts connections. */
export const waitForPort = async (port: number, timeoutMs = 20_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await isListening(port)) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`)
}
