import { createServer } from "node:net";

/**
 * Free TCP ports on 127.0.0.1, chosen by the kernel (listen on port 0, note it, close). Ports asked
 * for together are distinct. Another process may take one before Kafka binds it: the cluster's start
 * then fails with "Address already in use" in the broker's log, and a retried start picks afresh.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<import("node:net").Server>((resolve, reject) => {
          const s = createServer();
          s.once("error", reject);
          s.listen(0, "127.0.0.1", () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => {
    const address = s.address();
    if (address === null || typeof address === "string") throw new Error("listen on 127.0.0.1:0 gave no port");
    return address.port;
  });
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  return ports;
}
