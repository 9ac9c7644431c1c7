import { describe, expect, it } from 'vitest';
import { addressChecker, nonPublicKind } from '../../services/ingest/sources/address-guard.ts';

// The crawler's address classes (SSRF defence); the refusal through the CLI is in test/e2e/crawl-ssrf.test.ts.

describe('nonPublicKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['0.0.0.0', 'unspecified'], ['10.2.3.4', 'private'],
    ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'], ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'], ['224.0.0.1', 'multicast'], ['255.255.255.255', 'reserved'], ['198.18.0.1', 'reserved (benchmarking)'],
    ['::1', 'loopback'], ['::', 'unspecified'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:a9fe:a9fe', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'], ['fe80::1', 'link-local'], ['fd00::5', 'private (unique local)'], ['fc00::1', 'private (unique local)'],
    ['ff02::1', 'multicast'], ['2001:db8::1', 'reserved (documentation)'], ['2002:7f00:1::', 'reserved (6to4)'], ['::127.0.0.1', 'reserved'],
    ['[::1]', 'loopback'],
  ])('%s is %s', (address, kind) => {
    expect(nonPublicKind(address)).toBe(kind);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(nonPublicKind(address)).toBeNull();
  });
});

describe('addressChecker', () => {
  it('refuses non-public addresses unless a network or everything is allowed', () => {
    expect(addressChecker({})('10.1.2.3')).toMatch(/^refused address 10\.1\.2\.3 \(private/);
    expect(addressChecker({})('8.8.8.8')).toBeNull();
    const intranet = addressChecker({ allowedNetworks: ['10.1.0.0/16', '::1'] });
    expect(intranet('10.1.2.3')).toBeNull();
    expect(intranet('::ffff:10.1.2.3')).toBeNull();
    expect(intranet('::1')).toBeNull();
    expect(intranet('10.2.0.1')).toMatch(/refused/);
    expect(intranet('127.0.0.1')).toMatch(/refused/);
    expect(addressChecker({ allowPrivate: true })('127.0.0.1')).toBeNull();
  });
});
