/**
 * Loopback ports for the tests and benches that start servers of their own
 * (PostgreSQL clusters, runner ports of several instances).
 */
import * as NodeNet from "node:net"

/** A port nobody listens on now on 127.0.0.1 (the caller listens on it right after). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

/** Whether something accepts connections on 127.0.0.1:`port` now. */
export const connectable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = NodeNet.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })
