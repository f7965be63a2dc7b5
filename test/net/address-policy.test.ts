/**
 * Which addresses read_url may connect to, in every spelling an address can take.
 */
import { describe, expect, it } from 'vitest';
import { addressRefusal } from '../../src/net/address-policy.js';

const PUBLIC = [
  '93.184.216.34',
  '8.8.8.8',
  '1.1.1.1',
  '172.15.255.255', // just below 172.16.0.0/12
  '172.32.0.0', // just above it
  '100.63.255.255', // just below carrier-grade NAT
  '100.128.0.0', // just above it
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8', // mapped public IPv4
  '64:ff9b::808:808', // NAT64 of 8.8.8.8
  '2002:808:808::1', // 6to4 of 8.8.8.8
];

const REFUSED: Array<[string, RegExp]> = [
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['10.0.0.1', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.168.1.1', /private/],
  ['169.254.169.254', /link-local.*metadata/],
  ['100.64.0.1', /carrier-grade NAT/],
  ['100.100.100.200', /carrier-grade NAT/], // Alibaba Cloud metadata
  ['168.63.129.16', /metadata/], // Azure platform endpoint
  ['0.0.0.0', /unspecified/],
  ['224.0.0.1', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['240.0.0.1', /reserved/],
  ['192.0.2.1', /documentation/],
  ['198.18.0.1', /benchmarking/],
  ['192.0.0.192', /special-purpose/],
  ['::1', /loopback/],
  ['[::1]', /loopback/],
  ['::', /unspecified/],
  ['::ffff:127.0.0.1', /loopback/],
  ['::ffff:7f00:1', /loopback/],
  ['::FFFF:10.0.0.1', /private/],
  ['::ffff:169.254.169.254', /link-local/],
  ['::127.0.0.1', /IPv4-compatible/],
  ['64:ff9b::a00:1', /private/], // NAT64 of 10.0.0.1
  ['2002:7f00:1::1', /loopback/], // 6to4 of 127.0.0.1
  ['fc00::1', /unique-local/],
  ['fd00:ec2::254', /unique-local/], // AWS IPv6 metadata
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['ff02::1', /multicast/],
  ['2001:db8::1', /documentation/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
  ['100::1', /reserved/],
  ['localhost', /not an IP address/],
];

describe('the read_url address policy', () => {
  it.each(PUBLIC)('allows the public address %s', (address) => {
    expect(addressRefusal(address)).toBeUndefined();
  });

  it.each(REFUSED)('refuses %s as %s', (address, reason) => {
    expect(addressRefusal(address)).toMatch(reason);
  });

  it('with the test-only allowance, lets loopback through and nothing else', () => {
    const policy = { allowLoopback: true };
    expect(addressRefusal('127.0.0.1', policy)).toBeUndefined();
    expect(addressRefusal('::1', policy)).toBeUndefined();
    expect(addressRefusal('::ffff:127.0.0.1', policy)).toBeUndefined();
    expect(addressRefusal('10.0.0.1', policy)).toMatch(/private/);
    expect(addressRefusal('169.254.169.254', policy)).toMatch(/link-local/);
    expect(addressRefusal('0.0.0.0', policy)).toMatch(/unspecified/);
  });
});
