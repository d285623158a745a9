import { once } from 'node:events';
import net from 'node:net';

/** A raw HTTP connection to the service and what it has answered so far. */
export interface RawClient {
  socket: net.Socket;
  reply: string;
  closed: boolean;
}

/** Connects to `url`'s host and port, sends `head` (and whatever the test writes later), recording the reply. */
export async function openRawConnection(url: string, head: string | Buffer): Promise<RawClient> {
  const { port, hostname } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.on('error', () => undefined);
  await once(socket, 'connect');
  const client: RawClient = { socket, reply: '', closed: false };
  socket.on('data', (chunk) => (client.reply += chunk));
  socket.on('close', () => (client.closed = true));
  socket.write(head);
  return client;
}
