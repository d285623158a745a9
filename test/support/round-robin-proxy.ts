import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** How many requests each target received, in the targets' order. */
  served: number[];
  close(): Promise<void>;
}

/** A load balancer on loopback: each request goes to the next of `targets` in turn, body and answer streamed through. */
export async function startRoundRobinProxy(targets: string[]): Promise<RoundRobinProxy> {
  const served = targets.map(() => 0);
  let next = 0;
  const server = http.createServer((req, res) => {
    const index = next++ % targets.length;
    served[index]!++;
    const target = new URL(req.url ?? '/', targets[index]);
    const upstream = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
