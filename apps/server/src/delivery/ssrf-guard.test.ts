import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { guardedConnector, parseIp, refusalReason, resolvePublicAddress } from './ssrf-guard.js';

const REFUSED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.100.100.200', 'carrier-grade NAT'],
  ['169.254.169.254', 'link-local (cloud metadata)'],
  ['192.0.0.192', 'IETF protocol assignments (cloud metadata)'],
  ['168.63.129.16', 'cloud metadata'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'reserved'],
  ['198.18.0.1', 'benchmarking'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['::ffff:127.0.0.1', 'IPv4-mapped'],
  ['::ffff:7f00:1', 'IPv4-mapped'],
  ['::ffff:8.8.8.8', 'IPv4-mapped'],
  ['::127.0.0.1', 'IPv4-compatible'],
  ['64:ff9b::a9fe:a9fe', 'NAT64'],
  ['64:ff9b:1::1', 'NAT64'],
  ['2002:7f00:1::1', '6to4'],
  ['2001:0:4136:e378::1', 'Teredo'],
  ['fc00::1', 'unique local (private, cloud metadata)'],
  ['fd00:ec2::254', 'unique local (private, cloud metadata)'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['[fe80::1]', 'link-local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
];

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '11.0.0.1',
  '2606:4700::1111',
  '2a00:1450::1',
];

describe('refusalReason', () => {
  it.each(REFUSED)('refuses %s (%s)', (address, reason) => {
    expect(refusalReason(address)).toBe(reason);
  });

  it.each(ALLOWED)('allows the public address %s', (address) => {
    expect(refusalReason(address)).toBeUndefined();
  });

  it('refuses what is not an address', () => {
    expect(refusalReason('example.com')).toBe('not an IP address');
  });

  it('parses IPv6 with an embedded IPv4 tail', () => {
    expect(Array.from(parseIp('::ffff:1.2.3.4') ?? [])).toEqual([
      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4,
    ]);
  });
});

describe('resolvePublicAddress', () => {
  const dns = (answers: Record<string, string[]>) => async (host: string) => answers[host] ?? [];

  it('refuses a host when any answer is internal', async () => {
    const resolve = dns({ 'mixed.test': ['8.8.8.8', '10.0.0.1'], 'meta.test': ['169.254.169.254'] });
    await expect(resolvePublicAddress('mixed.test', resolve)).rejects.toThrow(/10\.0\.0\.1 \(private\)/);
    await expect(resolvePublicAddress('meta.test', resolve)).rejects.toThrow(/cloud metadata/);
    await expect(resolvePublicAddress('none.test', resolve)).rejects.toThrow(/no address/);
    await expect(resolvePublicAddress('[::1]', resolve)).rejects.toThrow(/loopback/);
  });

  it('returns the first public answer', async () => {
    const resolve = dns({ 'ok.test': ['2606:4700::1111', '1.1.1.1'] });
    expect(await resolvePublicAddress('ok.test', resolve)).toBe('2606:4700::1111');
  });
});

describe('guardedConnector', () => {
  async function receiver() {
    const server = createServer((req, res) => {
      res.end(JSON.stringify({ host: req.headers.host }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, port: (server.address() as AddressInfo).port };
  }

  it('refuses loopback at connect time, also when DNS answers with it', async () => {
    const { server, port } = await receiver();
    const agent = new Agent({
      connect: guardedConnector({ allowInsecure: false, resolve: async () => ['127.0.0.1'] }),
    });
    try {
      await expect(request(`http://127.0.0.1:${port}/`, { dispatcher: agent })).rejects.toThrow(/loopback/);
      await expect(request(`http://rebind.test:${port}/`, { dispatcher: agent })).rejects.toThrow(/loopback/);
    } finally {
      await agent.close();
      server.close();
    }
  });

  it('connects to the address it checked (pinned), keeping the Host header', async () => {
    const { server, port } = await receiver();
    const lookups: string[] = [];
    const agent = new Agent({
      connect: guardedConnector({
        allowInsecure: false,
        // Admit loopback only for this test; the name exists in no real DNS, so success proves
        // that the socket went to the address the guard resolved and checked.
        refuse: () => undefined,
        resolve: async (host) => {
          lookups.push(host);
          return ['127.0.0.1'];
        },
      }),
    });
    try {
      const res = await request(`http://hooks.invalid:${port}/`, { dispatcher: agent });
      expect(await res.body.json()).toEqual({ host: `hooks.invalid:${port}` });
      expect(lookups).toEqual(['hooks.invalid']);
    } finally {
      await agent.close();
      server.close();
    }
  });

  it('allows loopback in insecure mode', async () => {
    const { server, port } = await receiver();
    const agent = new Agent({ connect: guardedConnector({ allowInsecure: true }) });
    try {
      const res = await request(`http://127.0.0.1:${port}/`, { dispatcher: agent });
      expect(res.statusCode).toBe(200);
      await res.body.dump();
    } finally {
      await agent.close();
      server.close();
    }
  });
});
