import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * An https front on loopback, the way a verifier on the web reaches an issuer: a throwaway CA made
 * by the `openssl` CLI signs a certificate for `localhost`, and every request is passed to the
 * service's plain-http port. Verifiers trust the CA by `caFile` (NODE_EXTRA_CA_CERTS), nothing else.
 * Extra paths (`documents`) are answered by the front itself: what a third party would host.
 */
export interface TlsFront {
  origin: string;
  caFile: string;
  /** Where requests go; set once the service listens. */
  target: string;
  documents: Map<string, unknown>;
  close(): Promise<void>;
}

function makeCertificates(dir: string) {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test verifier CA');
  run('req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  );
}

export async function startTlsFront(): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'tls-front-'));
  makeCertificates(dir);
  const documents = new Map<string, unknown>();
  const front: TlsFront = { origin: '', caFile: join(dir, 'ca.pem'), target: '', documents, close: async () => undefined };
  const server: Server = createServer({ key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) }, (req, res) => {
    const own = documents.get(req.url ?? '');
    if (own !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(own));
      return;
    }
    const target = new URL(front.target);
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front.origin = `https://localhost:${(server.address() as { port: number }).port}`;
  front.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      });
    });
  return front;
}
