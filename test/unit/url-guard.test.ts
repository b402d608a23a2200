import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkProviderUrl, guardedAgent, isBlockedAddress } from '../../server/providers/url-guard.js';

// The address guard for URLs workspaces give: which addresses it refuses, the 400 when a URL is
// given, and the refusal at connect time (a real local server the guarded pool must not reach).

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '64:ff9b::a9fe:a9fe',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
  ])('refuses %s', (ip) => expect(isBlockedAddress(ip)).toBe(true));

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'lets %s through',
    (ip) => expect(isBlockedAddress(ip)).toBe(false),
  );
});

describe('checkProviderUrl', () => {
  it('refuses private addresses and names resolving to them, unless allowed', async () => {
    for (const url of ['http://127.0.0.1:1/', 'http://[::1]/', 'http://localhost/', 'http://10.0.0.1/'])
      await expect(checkProviderUrl(url, false)).rejects.toMatchObject({ type: 'invalid_request_error' });
    await expect(checkProviderUrl('http://localhost/', true)).resolves.toBeUndefined();
    await expect(checkProviderUrl('file:///etc/passwd', true)).rejects.toMatchObject({ type: 'invalid_request_error' });
    await expect(checkProviderUrl('http://user:pw@example.com/', true)).rejects.toMatchObject({
      type: 'invalid_request_error',
    });
  });
});

describe('guardedAgent', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('inside');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('refuses to connect to a loopback address, by IP or by a name resolving to it', async () => {
    const agent = guardedAgent(2_000);
    try {
      for (const host of ['127.0.0.1', 'localhost'])
        await expect(request(`http://${host}:${port}/`, { dispatcher: agent })).rejects.toThrow(
          /loopback, private, link-local or metadata/,
        );
      expect(hits).toBe(0);
      // The same server is reachable without the guard: the refusal is the guard's.
      const res = await request(`http://127.0.0.1:${port}/`);
      expect(await res.body.text()).toBe('inside');
    } finally {
      await agent.close();
    }
  });
});
