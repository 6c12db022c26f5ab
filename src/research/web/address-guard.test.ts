/**
 * The SSRF suite: every refused address class in every notation, names that resolve to them,
 * redirects from an allowed local server to refused places, the allow-list, non-http schemes, and
 * pinning (the connection goes to the vetted address, not to a second DNS answer).
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DossierError } from '../../errors/index.ts';
import { refusalReason, vetUrl, type LookupAll } from './address-guard.ts';
import { fetchPage } from './fetch-page.ts';

/** A resolver from a fixed table (unknown names fail like DNS does). */
function table(entries: Record<string, string[]>): LookupAll & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const addresses = entries[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

async function refused(url: string, options: Parameters<typeof vetUrl>[1] = {}, why?: RegExp): Promise<DossierError> {
  const error = await vetUrl(url, options).then(
    () => assert.fail(`${url} was let through`),
    (e: unknown) => e as DossierError,
  );
  assert.ok(DossierError.isInstance(error), `${url}: ${String(error)}`);
  assert.equal(error.code, 'blocked-address', `${url}: ${error.message}`);
  assert.ok(error.message.startsWith(`refused ${url}`), `names the URL: ${error.message}`);
  assert.ok(!error.message.includes('\n'), 'one line');
  if (why) assert.match(error.message, why, url);
  return error;
}

/** Every class, in the notations people (and attackers) write. */
const LITERALS: Record<string, [RegExp, string[]]> = {
  loopback: [
    /loopback/,
    [
      'http://127.0.0.1/',
      'http://127.0.0.1:8080/admin',
      'http://127.1/',
      'http://127.0.0.1./',
      'http://127.255.255.254/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://0x7f000001/',
      'http://017700000001/',
      'http://0177.0.0.1/',
      'http://127。0。0。1/',
      'http://[::1]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[0:0:0:0:0:ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      'http://[::ffff:0:127.0.0.1]/',
      'http://[64:ff9b::127.0.0.1]/',
      'http://[2002:7f00:1::]/',
      'https://127.0.0.1/',
    ],
  ],
  private: [
    /private/,
    [
      'http://10.0.0.1/',
      'http://10.255.255.255/',
      'http://172.16.0.1/',
      'http://172.31.255.254/',
      'http://192.168.1.1/',
      'http://0xa000001/',
      'http://167772161/',
      'http://[::ffff:10.0.0.1]/',
      'http://[::ffff:c0a8:101]/',
      'http://[fc00::1]/',
      'http://[fd12:3456:789a::1]/',
    ],
  ],
  'link-local': [/link-local/, ['http://169.254.1.1/', 'http://[fe80::1]/', 'http://[::ffff:169.254.10.10]/']],
  metadata: [
    /metadata/,
    [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fd00:ec2::254]/',
      'http://169.254.170.2/v2/credentials',
    ],
  ],
  unspecified: [/unspecified/, ['http://0.0.0.0/', 'http://0/', 'http://0.0.0.0:3000/', 'http://[::]/', 'http://[::ffff:0.0.0.0]/']],
  cgnat: [/carrier-grade NAT/, ['http://100.64.0.1/', 'http://100.127.255.254/', 'http://[::ffff:100.64.0.1]/']],
  multicast: [/multicast/, ['http://224.0.0.1/', 'http://239.255.255.250/', 'http://[ff02::1]/', 'http://[ff05::2]/']],
  broadcast: [/broadcast/, ['http://255.255.255.255/', 'http://4294967295/']],
  reserved: [
    /reserved|benchmarking|special-purpose/,
    ['http://240.0.0.1/', 'http://192.0.2.1/', 'http://198.18.0.1/', 'http://203.0.113.9/', 'http://[2001:db8::1]/'],
  ],
};

describe('address guard: literal addresses', () => {
  for (const [kind, [why, urls]] of Object.entries(LITERALS)) {
    it(`refuses ${kind} addresses in every notation`, async () => {
      // No resolver may be asked about a literal: a throwing one proves it.
      const lookup: LookupAll = async (host) => assert.fail(`looked up ${host}`);
      for (const url of urls) await refused(url, { lookup }, why);
    });
  }

  it('lets public addresses through, IPv4, IPv6 and IPv4-mapped', async () => {
    for (const url of [
      'http://93.184.215.14/',
      'https://8.8.8.8/dns',
      'http://[2606:4700:4700::1111]/',
      'http://[::ffff:8.8.8.8]/',
      'http://134744072/',
    ]) {
      const target = await vetUrl(url);
      assert.equal(target.addresses.length, 1, url);
    }
  });

  it('refusalReason names the class of bare addresses too', () => {
    assert.match(refusalReason('127.0.0.1') ?? '', /loopback/);
    assert.match(refusalReason('::ffff:7f00:1') ?? '', /loopback.*127\.0\.0\.1 inside IPv6/);
    assert.match(refusalReason('fd00:ec2::254') ?? '', /metadata/);
    assert.match(refusalReason('100.100.100.200') ?? '', /metadata/);
    assert.equal(refusalReason('1.1.1.1'), undefined);
    assert.equal(refusalReason('2a00:1450:4001:80b::200e'), undefined);
  });
});

describe('address guard: names', () => {
  it("refuses a name when any of its addresses is refused (DNS order is the attacker's)", async () => {
    const lookup = table({
      'loop.test': ['127.0.0.1'],
      'mixed.test': ['93.184.215.14', '10.1.2.3'],
      'mixed6.test': ['2606:4700:4700::1111', '::1'],
      'mapped.test': ['::ffff:169.254.169.254'],
      'cgnat.test': ['100.64.1.1'],
      'zero.test': ['0.0.0.0'],
    });
    await refused('http://loop.test/', { lookup }, /loop\.test resolves to 127\.0\.0\.1, which is a loopback address/);
    await refused('http://mixed.test/', { lookup }, /10\.1\.2\.3.*private/);
    await refused('https://mixed6.test/x', { lookup }, /::1.*loopback/);
    await refused('http://mapped.test/', { lookup }, /metadata/);
    await refused('http://cgnat.test/', { lookup }, /carrier-grade/);
    await refused('http://zero.test/', { lookup }, /unspecified/);
  });

  it('refuses metadata and loopback names without asking DNS', async () => {
    const lookup = table({});
    await refused('http://metadata.google.internal/computeMetadata/v1/', { lookup }, /cloud metadata host/);
    await refused('http://METADATA.google.internal./', { lookup }, /cloud metadata host/);
    await refused('http://localhost:9/', { lookup }, /loopback name/);
    await refused('http://api.localhost/', { lookup }, /loopback name/);
    assert.deepEqual(lookup.calls, []);
  });

  it("with the system resolver: this machine's own name resolves to a non-public address and is refused", async (t) => {
    const name = hostname();
    const addresses = await dnsLookup(name, { all: true }).catch(() => []);
    if (addresses.length === 0 || addresses.every((a) => refusalReason(a.address) === undefined))
      return t.skip(`${name} does not resolve to a non-public address here`);
    await refused(`http://${name}/`, {}, new RegExp(`${name} resolves to`));
  });

  it('a name that does not resolve is an error, not a pass', async () => {
    const error = await vetUrl('http://nowhere.test/', { lookup: table({}) }).then(
      () => assert.fail('passed'),
      (e: DossierError) => e,
    );
    assert.equal(error.code, 'remote-unreachable');
    assert.match(error.message, /cannot resolve nowhere\.test/);
  });

  it('lets a name with public addresses through, keeping every vetted address', async () => {
    const target = await vetUrl('https://example.test/a?b=c', {
      lookup: table({ 'example.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] }),
    });
    assert.deepEqual(
      target.addresses.map((a) => a.address),
      ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    );
    assert.equal(target.host, 'example.test');
  });
});

describe('address guard: schemes', () => {
  it('refuses everything but http and https', async () => {
    for (const url of [
      'file:///etc/passwd',
      'ftp://ftp.example.org/file',
      'gopher://example.org:70/1',
      'data:text/html,<h1>hi</h1>',
      'javascript:alert(1)',
      'ws://example.org/',
      'blob:https://example.org/x',
    ]) {
      await refused(url, {}, /only http and https/);
    }
  });

  it('a string that is no URL is bad input', async () => {
    await assert.rejects(vetUrl('not a url'), (e: DossierError) => e.code === 'bad-input' && /not a valid URL/.test(e.message));
  });
});

describe('address guard: the allow-list', () => {
  it('lets named addresses and ranges through and still refuses the rest', async () => {
    await vetUrl('http://127.0.0.1:8080/', { allow: ['127.0.0.1'] });
    await vetUrl('http://[::ffff:127.0.0.1]/', { allow: ['127.0.0.1'] });
    await refused('http://127.0.0.2/', { allow: ['127.0.0.1'] }, /loopback/);
    await refused('http://10.0.0.1/', { allow: ['127.0.0.1'] }, /private/);
    await refused('http://169.254.169.254/', { allow: ['127.0.0.1'] }, /metadata/);
    await vetUrl('http://10.20.30.40/', { allow: ['10.0.0.0/8'] });
    await refused('http://192.168.0.1/', { allow: ['10.0.0.0/8'] }, /private/);
    await vetUrl('http://[fd00::5]/', { allow: ['fd00::/16'] });
    await refused('http://[fd01::5]/', { allow: ['fd00::/16'] }, /unique local/);
  });

  it('a host allowed by name passes whatever it resolves to; other names with the same address do not', async () => {
    const lookup = table({ 'intranet.test': ['10.0.0.5'], 'other.test': ['10.0.0.5'] });
    const target = await vetUrl('http://intranet.test/wiki', { allow: ['Intranet.Test'], lookup });
    assert.deepEqual(
      target.addresses.map((a) => a.address),
      ['10.0.0.5'],
    );
    await refused('http://other.test/', { allow: ['intranet.test'], lookup }, /private/);
    await vetUrl('http://localhost:1/', { allow: ['localhost'] });
  });

  it('a malformed range is a config error', async () => {
    await assert.rejects(
      vetUrl('http://8.8.8.8/', { allow: ['10.0.0.0/99'] }),
      (e: DossierError) => e.code === 'config' && /10\.0\.0\.0\/99/.test(e.message),
    );
  });
});

describe('address guard: redirects and pinning (fetchPage)', () => {
  let server: Server;
  let bystander: Server;
  let base: string;
  let bystanderHits = 0;

  before(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`hello from ${req.headers.host}`);
    });
    // On 127.0.0.2, which the allow-list does not name: it must never be reached.
    bystander = createServer((_req, res) => {
      bystanderHits++;
      res.end('secret');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => bystander.listen((server.address() as AddressInfo).port, '127.0.0.2', resolve)).catch(
      () => undefined,
    );
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await new Promise((resolve) => bystander.close(resolve));
  });

  const redirectTo = (to: string) => `${base}/redirect?to=${encodeURIComponent(to)}`;

  it('follows a redirect to an allowed place', async () => {
    const page = await fetchPage(redirectTo('/final'), { allow: ['127.0.0.1'] });
    assert.equal(page.finalUrl, `${base}/final`);
    assert.match(page.markdown, /hello from 127\.0\.0\.1/);
  });

  it('re-checks every hop: redirects to refused addresses, names and schemes are refused, naming the hop', async () => {
    const port = new URL(base).port;
    const lookup = table({ 'rebind.test': ['10.0.0.1'] });
    const targets: [string, RegExp][] = [
      [`http://127.0.0.2:${port}/`, /loopback/],
      ['http://169.254.169.254/latest/meta-data/', /metadata/],
      [`http://[::1]:${port}/`, /loopback/],
      [`http://[::ffff:127.0.0.2]:${port}/`, /loopback/],
      [`http://2130706434:${port}/`, /loopback/],
      ['http://localhost/', /loopback name/],
      ['http://rebind.test/', /10\.0\.0\.1.*private/],
      ['file:///etc/passwd', /only http and https/],
      ['gopher://127.0.0.1:6379/_FLUSHALL', /only http and https/],
    ];
    for (const [to, why] of targets) {
      const error = await fetchPage(redirectTo(to), { allow: ['127.0.0.1'], lookup }).then(
        () => assert.fail(`redirect to ${to} was followed`),
        (e: DossierError) => e,
      );
      assert.equal(error.code, 'blocked-address', `${to}: ${error.message}`);
      assert.match(error.message, why, to);
      assert.match(error.message, /^refused \S+/);
    }
    assert.equal(bystanderHits, 0, 'the refused server was never contacted');
  });

  it('refuses the first hop too, before connecting', async () => {
    const port = new URL(base).port;
    await assert.rejects(fetchPage(`http://127.0.0.2:${port}/`), (e: DossierError) => e.code === 'blocked-address');
    await assert.rejects(
      fetchPage(`${base}/`),
      (e: DossierError) =>
        e.code === 'blocked-address' && /^refused http:\/\/127\.0\.0\.1:\d+\/: 127\.0\.0\.1 is a loopback address/.test(e.message),
    );
    assert.equal(bystanderHits, 0);
  });

  it('connects to the vetted address: a name no real DNS knows reaches the local server, and is resolved once per hop', async () => {
    // The first answer is vetted (allowed by range); a second lookup would say 10.0.0.1. Pinning means
    // there is no second lookup, and the socket goes to 127.0.0.1 although the system resolver has never heard of the name.
    let calls = 0;
    const rebinding: LookupAll = async () => (calls++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.0.0.1', family: 4 }]);
    const port = new URL(base).port;
    const page = await fetchPage(`http://pinned.invalid:${port}/hi`, { allow: ['127.0.0.0/8'], lookup: rebinding });
    assert.match(page.markdown, new RegExp(`hello from pinned\\.invalid:${port}`), 'the Host header keeps the name');
    assert.equal(calls, 1);
  });
});
