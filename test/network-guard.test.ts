import { describe, expect, it } from 'vitest';
import net from 'node:net';
import { isAllowedTarget } from './setup/network-guard.js';

describe('network guard', () => {
  it('refuses a connection to a non-loopback address before any packet leaves', () => {
    expect(() => net.connect({ host: '93.184.216.34', port: 80 })).toThrow(/network guard/);
  });

  it('makes fetch to a public host fail loudly', async () => {
    await expect(fetch('http://93.184.216.34/')).rejects.toThrow();
  });

  it('allows loopback and unix sockets', () => {
    expect(isAllowedTarget({ host: '127.0.0.1' })).toBe(true);
    expect(isAllowedTarget({ host: '::1' })).toBe(true);
    expect(isAllowedTarget({ host: 'localhost' })).toBe(true);
    expect(isAllowedTarget({ path: '/var/run/postgresql/.s.PGSQL.5432' })).toBe(true);
    expect(isAllowedTarget({ host: '10.0.0.1' })).toBe(false);
  });
});
