// Attack 4: idle keyless connections and bodies trickled a byte a second.
import { connect, type Socket } from 'node:net';
import type { Attack } from '../attack.js';
import { sleep } from '../requests.js';

/** Attack 4: 10,000 idle keyless connections (full run) and 50 bodies trickled a byte a second. */
export const connections: Attack = async ({ url, signal, sizes }) => {
  const { port } = new URL(url);
  const sockets: Socket[] = [];
  let closedByServer = 0;
  const open = (onConnect: () => void) => {
    const socket = connect(Number(port), '127.0.0.1', onConnect);
    socket.on('error', () => {});
    socket.resume(); // a paused socket never sees the server's close
    socket.on('close', () => {
      if (!signal.aborted) closedByServer += 1;
    });
    sockets.push(socket);
    return socket;
  };
  const idle = sizes.idle;
  for (let i = 0; i < idle; i += 1) {
    open(() => {});
    if (i % 500 === 499) await sleep(10);
  }
  const timers: NodeJS.Timeout[] = [];
  for (let i = 0; i < 50; i += 1) {
    const socket = open(() =>
      socket.write(
        'POST /v0/account_logs HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{',
      ),
    );
    timers.push(setInterval(() => socket.writable && socket.write(' '), 1000));
  }
  while (!signal.aborted) await sleep(100);
  for (const timer of timers) clearInterval(timer);
  const stillOpen = sockets.filter((s) => !s.destroyed).length;
  for (const socket of sockets) socket.destroy();
  return { attacker: { opened: sockets.length, closedByServer, stillOpen } };
};
