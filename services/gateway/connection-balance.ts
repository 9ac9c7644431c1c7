import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

// SO_REUSEPORT hands a new connection to a thread by a hash of its addresses, so a few long-lived
// keep-alive connections (a proxy's pool, a load generator's eight) can land unevenly: 6 and 2 on
// two threads leaves one core half idle (c=8 at 100k: 891 to 1550 searches a second from run to
// run). Each thread counts its open connections in a table shared by all; a thread holding more
// than its share answers once with `Connection: close` on a connection, the client opens a new
// one (HTTP/1.1 clients do, and lose nothing: the answer was complete), and the kernel hashes that
// one anew. Balanced, nothing is closed.

const shedding = Symbol('fundus.shedding');

/** `counts`: open connections per thread (one Int32 each, shared); `me`: this thread's slot. */
export function balanceConnections(app: FastifyInstance, counts: Int32Array, me: number): void {
  app.server.on('connection', (socket: Socket & { [shedding]?: boolean }) => {
    Atomics.add(counts, me, 1);
    socket.once('close', () => {
      if (!socket[shedding]) Atomics.sub(counts, me, 1);
    });
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const socket = request.raw.socket as Socket & { [shedding]?: boolean };
    if (!socket[shedding] && overShare(counts, me)) {
      // Counted out now, not when it closes: the next answers see the share it leaves.
      socket[shedding] = true;
      Atomics.sub(counts, me, 1);
      reply.header('connection', 'close');
    }
    done(null, payload);
  });
}

/** More open connections than the even share (rounded up) of all threads' connections. */
export function overShare(counts: Int32Array, me: number): boolean {
  let total = 0;
  for (let i = 0; i < counts.length; i++) total += Atomics.load(counts, i);
  return Atomics.load(counts, me) > Math.ceil(total / counts.length);
}
