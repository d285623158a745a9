import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How a path answers: a status code, or `hold` (never answers; the request stays open). */
export type Behaviour = number | 'hold';

/** A real HTTP receiver on loopback that records every POST and answers as told per path. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly held: http.ServerResponse[] = [];
  private readonly server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      this.received.push({ path, headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      const behaviour = this.behaviours.get(path) ?? 200;
      if (behaviour === 'hold') return void this.held.push(response);
      response.writeHead(behaviour, { 'content-type': 'text/plain' }).end(behaviour < 300 ? 'ok' : `failure ${behaviour}`);
    });
  });

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  answer(path: string, behaviour: Behaviour): void {
    this.behaviours.set(path, behaviour);
  }

  at(path: string): ReceivedWebhook[] {
    return this.received.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    this.held.forEach((response) => response.destroy());
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
