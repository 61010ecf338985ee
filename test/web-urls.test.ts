// URL safety without any network: the pure checks web_fetch applies to each hop, over a table of
// refused forms (literal addresses in every spelling the WHATWG parser accepts, IPv6 forms that
// carry an IPv4 address, names resolving to internal addresses, metadata names, bad schemes).
import { describe, expect, it } from 'vitest';
import { addressRefusal, checkAddresses, checkUrl } from '../src/tools/web.js';

/** The verdict for a URL whose host resolved to `addresses` (a literal address resolves to itself). */
function verdict(raw: string, addresses?: string[], allow: string[] = []): string | null {
  const url = new URL(raw);
  const early = checkUrl(url);
  if (early) return early;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return checkAddresses(url, addresses ?? [host], allow);
}

// [URL, addresses its name resolves to (none for a literal), a phrase of the reason]
const REFUSED: [string, string[] | undefined, string][] = [
  ['http://127.0.0.1/', undefined, 'loopback'],
  ['http://127.1/', undefined, 'loopback'],
  ['http://2130706433/', undefined, 'loopback'],
  ['http://0x7f000001/', undefined, 'loopback'],
  ['http://0x7f.0x0.0x0.0x1/', undefined, 'loopback'],
  ['http://017700000001/', undefined, 'loopback'],
  ['http://0177.0.0.01/', undefined, 'loopback'],
  ['http://127.255.255.254:8080/x', undefined, 'loopback'],
  ['http://0.0.0.0/', undefined, '0.0.0.0/8'],
  ['http://0/', undefined, '0.0.0.0/8'],
  ['http://10.0.0.1/', undefined, 'private (10/8)'],
  ['http://10.255.255.255/', undefined, 'private (10/8)'],
  ['http://172.16.0.1/', undefined, 'private (172.16/12)'],
  ['http://172.31.255.254/', undefined, 'private (172.16/12)'],
  ['http://192.168.1.1/', undefined, 'private (192.168/16)'],
  ['http://169.254.169.254/latest/meta-data/', undefined, 'link-local'],
  ['http://0xa9fea9fe/', undefined, 'link-local'],
  ['http://100.64.0.1/', undefined, 'carrier-grade NAT'],
  ['http://100.100.100.200/', undefined, 'carrier-grade NAT'],
  ['http://192.0.0.192/', undefined, 'IETF special-purpose'],
  ['http://224.0.0.1/', undefined, 'multicast'],
  ['http://239.255.255.250/', undefined, 'multicast'],
  ['http://255.255.255.255/', undefined, 'broadcast'],
  ['http://240.0.0.1/', undefined, 'reserved'],
  ['http://198.18.0.1/', undefined, 'benchmarking'],
  ['http://[::1]/', undefined, 'loopback (::1)'],
  ['http://[0:0:0:0:0:0:0:1]/', undefined, 'loopback (::1)'],
  ['http://[::]/', undefined, 'unspecified'],
  ['http://[::ffff:127.0.0.1]/', undefined, 'IPv4-mapped form of 127.0.0.1, loopback'],
  ['http://[::ffff:7f00:1]/', undefined, 'IPv4-mapped form of 127.0.0.1'],
  ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', undefined, 'IPv4-mapped form of 169.254.169.254'],
  ['http://[::ffff:10.1.2.3]/', undefined, 'IPv4-mapped form of 10.1.2.3, private'],
  ['http://[::127.0.0.1]/', undefined, 'IPv4-compatible form of 127.0.0.1'],
  ['http://[::c0a8:101]/', undefined, 'IPv4-compatible form of 192.168.1.1'],
  ['http://[::ffff:0:127.0.0.1]/', undefined, 'IPv4-translated form of 127.0.0.1'],
  ['http://[64:ff9b::127.0.0.1]/', undefined, 'NAT64 form of 127.0.0.1'],
  ['http://[64:ff9b::a9fe:a9fe]/', undefined, 'NAT64 form of 169.254.169.254'],
  ['http://[64:ff9b:1::1]/', undefined, 'local-use NAT64'],
  ['http://[2002:7f00:1::]/', undefined, '6to4 form of 127.0.0.1'],
  ['http://[2002:a9fe:a9fe::1]/', undefined, '6to4 form of 169.254.169.254'],
  ['http://[2002:c0a8:0101::5]/', undefined, '6to4 form of 192.168.1.1'],
  ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', undefined, 'Teredo'],
  ['http://[fc00::1]/', undefined, 'unique-local'],
  ['http://[fd12:3456:789a::1]/', undefined, 'unique-local'],
  ['http://[fe80::1]/', undefined, 'link-local (fe80::/10)'],
  ['http://[febf::1]/', undefined, 'link-local (fe80::/10)'],
  ['http://[fec0::1]/', undefined, 'site-local'],
  ['http://[ff02::1]/', undefined, 'multicast (ff00::/8)'],
  ['http://[2001:db8::1]/', undefined, 'documentation'],
  ['http://localhost/', ['127.0.0.1', '::1'], 'localhost resolves to 127.0.0.1, loopback'],
  ['http://app.localhost:3000/', ['127.0.0.1'], 'loopback'],
  ['http://rebind.example/', ['93.184.215.14', '10.0.0.7'], 'rebind.example resolves to 10.0.0.7, private'],
  ['http://v6only.example/', ['::ffff:192.168.0.10'], 'IPv4-mapped form of 192.168.0.10'],
  ['http://nowhere.example/', [], 'has no address'],
  ['http://metadata.google.internal/computeMetadata/v1/', ['169.254.169.254'], 'cloud metadata service'],
  ['http://METADATA.GOOGLE.INTERNAL./', ['8.8.8.8'], 'cloud metadata service'],
  ['http://metadata/', ['8.8.8.8'], 'cloud metadata service'],
  ['http://metadata.goog/', ['8.8.8.8'], 'cloud metadata service'],
  ['ftp://example.com/file', ['93.184.215.14'], 'only http and https'],
  ['file:///etc/passwd', undefined, 'only http and https'],
  ['gopher://example.com/', ['93.184.215.14'], 'only http and https'],
  ['javascript:alert(1)', undefined, 'only http and https'],
  ['data:text/html,<h1>x</h1>', undefined, 'only http and https'],
  ['http://user:secret@example.com/', ['93.184.215.14'], 'user name or password'],
  ['http://user@example.com/', ['93.184.215.14'], 'user name or password'],
];

describe('web_fetch URL safety', () => {
  it(`refuses ${REFUSED.length} internal or unsafe forms`, () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(40);
    const missed = REFUSED.flatMap(([url, addresses, why]) => {
      const got = verdict(url, addresses);
      return got?.includes(why) ? [] : [{ url, expected: why, got }];
    });
    expect(missed).toEqual([]);
  });

  it('allows public addresses, including IPv6 forms of public IPv4 addresses', () => {
    const allowed: [string, string[] | undefined][] = [
      ['https://example.com/docs', ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']],
      ['http://8.8.8.8/', undefined],
      ['http://[2606:4700:4700::1111]/', undefined],
      ['http://[::ffff:8.8.8.8]/', undefined],
      ['http://[64:ff9b::808:808]/', undefined],
      ['http://[2002:808:808::1]/', undefined],
      ['http://172.32.0.1/', undefined],
      ['http://100.128.0.1/', undefined],
      ['http://docs.python.org:8443/', ['151.101.0.223']],
    ];
    expect(allowed.map(([url, a]) => [url, verdict(url, a)])).toEqual(allowed.map(([url]) => [url, null]));
  });

  it('lets the allow-list open exactly the listed host and port', () => {
    const allow = ['127.0.0.1:8080', 'localhost:3000', '[::1]:9000', '10.0.0.5'];
    expect(verdict('http://127.0.0.1:8080/api', undefined, allow)).toBeNull();
    expect(verdict('http://localhost:8080/', ['127.0.0.1'], allow)).toBeNull();
    expect(verdict('http://localhost:3000/', ['127.0.0.1', '::1'], allow)).toBeNull();
    expect(verdict('http://[::1]:9000/', undefined, allow)).toBeNull();
    expect(verdict('http://10.0.0.5:1234/', undefined, allow)).toBeNull();
    expect(verdict('http://127.0.0.1:8081/', undefined, allow)).toContain('loopback');
    expect(verdict('http://127.0.0.1/', undefined, allow)).toContain('"allowPrivate": ["127.0.0.1:80"]');
    expect(verdict('http://[::1]:9001/', undefined, allow)).toContain('"allowPrivate": ["[::1]:9001"]');
    expect(verdict('http://127.0.0.2:8080/', undefined, allow)).toContain('loopback');
    // The list opens private addresses, never the metadata names.
    expect(verdict('http://metadata.google.internal/', ['169.254.169.254'], ['metadata.google.internal:80'])).toContain('metadata');
  });

  it('reads addresses exactly', () => {
    expect(['1.2.3.4', '172.15.255.255', '192.169.0.1', '2001:4860:4860::8888', '::ffff:1.1.1.1'].map(addressRefusal)).toEqual([null, null, null, null, null]);
    expect(addressRefusal('not-an-ip')).toBe('not an IP address');
    expect(addressRefusal('172.16.0.0')).toBe('private (172.16/12)');
  });
});
