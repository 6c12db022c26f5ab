/**
 * The SSRF guard for web fetches (DESIGN §6): a URL may be fetched only over http(s), and only when
 * every address its host resolves to is a public unicast address — or the operator allowed it by
 * name or range (DOSSIER_WEB_ALLOW). The vetted addresses are what the caller must connect to
 * (`pinnedLookup`), so a DNS answer that changes between check and connect cannot slip through.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { DossierError } from '../../errors/index.ts';

/** dns.promises.lookup with `{all: true}`: every address of a host name. Injectable for tests. */
export type LookupAll = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

export interface AddressPolicy {
  /** Host names, IP addresses and CIDR ranges let through although they are not public ("127.0.0.1", "localhost", "10.0.0.0/8"). */
  allow?: readonly string[];
  lookup?: LookupAll;
}

/** A URL that passed the guard, and the addresses it may be reached at. */
export interface VettedTarget {
  url: URL;
  /** The host without IPv6 brackets. */
  host: string;
  addresses: LookupAddress[];
}

/** Host names that are never fetched unless allowed by name (cloud metadata, RFC 6761 loopback names). */
const REFUSED_NAMES: [RegExp, string][] = [
  [/^metadata\.google\.internal$|^metadata\.goog$|^metadata$|^instance-data(\.ec2\.internal)?$/, 'a cloud metadata host'],
  [/^(.+\.)?localhost$/, 'a loopback name'],
];

/** Why ipaddr.js range names are refused, in words. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (shared) address',
  private: 'a private address',
  reserved: 'a reserved address',
  uniqueLocal: 'a private (unique local) address',
  discard: 'a discard-only address',
  teredo: 'a Teredo tunnel address',
  benchmarking: 'a benchmarking address',
  orchid2: 'an ORCHID address',
  deprecated: 'a deprecated address',
};

const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200']);

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * The IPv4 address an IPv6 address carries, for the forms that route to it: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), NAT64
 * (64:ff9b::a.b.c.d) and 6to4 (2002:AABB:CCDD::).
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const tail = () => new ipaddr.IPv4([p[6] >> 8, p[6] & 0xff, p[7] >> 8, p[7] & 0xff]);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (p.slice(0, 6).every((part) => part === 0) && (p[6] !== 0 || p[7] > 1)) return tail(); // ::a.b.c.d (not :: or ::1)
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0xffff && p[5] === 0) return tail();
  if (p[0] === 0x64 && p[1] === 0xff9b && p.slice(2, 6).every((part) => part === 0)) return tail();
  if (p[0] === 0x2002) return new ipaddr.IPv4([p[1] >> 8, p[1] & 0xff, p[2] >> 8, p[2] & 0xff]);
  return undefined;
}

/** Why an address must not be fetched, or undefined for a public unicast address. */
export function refusalReason(text: string): string | undefined {
  let address: Address;
  try {
    address = ipaddr.parse(text);
  } catch {
    return 'not an IP address';
  }
  if (METADATA_ADDRESSES.has(address.toNormalizedString()) || METADATA_ADDRESSES.has(address.toString())) return 'a cloud metadata address';
  if (address.kind() === 'ipv6') {
    const inner = embeddedIPv4(address as ipaddr.IPv6);
    if (inner) {
      const why = refusalReason(inner.toString());
      return why ? `${why} (${inner.toString()} inside IPv6)` : undefined;
    }
  }
  const range = address.range();
  if (range === 'unicast') return undefined;
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}

/** Host names, and address ranges, that the operator lets through. */
export class AllowList {
  private readonly names = new Set<string>();
  private readonly ranges: [Address, number][] = [];

  constructor(entries: readonly string[] = []) {
    for (const raw of entries) {
      const entry = raw
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, '');
      if (!entry) continue;
      if (entry.includes('/')) {
        try {
          this.ranges.push(ipaddr.parseCIDR(entry));
          continue;
        } catch {
          throw new DossierError('config', `web allow-list entry "${raw}" is not a valid CIDR range`);
        }
      }
      if (ipaddr.isValid(entry)) {
        const address = ipaddr.parse(entry);
        this.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else {
        this.names.add(entry.replace(/\.$/, ''));
      }
    }
  }

  get empty(): boolean {
    return this.names.size === 0 && this.ranges.length === 0;
  }

  allowsName(host: string): boolean {
    return this.names.has(host.toLowerCase().replace(/\.$/, ''));
  }

  allowsAddress(text: string): boolean {
    const address = ipaddr.parse(text);
    const forms: Address[] = [address];
    // An allowed IPv4 range also covers its IPv4-mapped IPv6 spelling, and the other way round.
    if (address.kind() === 'ipv6') {
      const inner = embeddedIPv4(address as ipaddr.IPv6);
      if (inner) forms.push(inner);
    } else {
      forms.push((address as ipaddr.IPv4).toIPv4MappedAddress());
    }
    return forms.some((form) => this.ranges.some(([base, bits]) => base.kind() === form.kind() && form.match(base, bits)));
  }
}

function blocked(url: string, why: string): DossierError {
  return new DossierError('blocked-address', `refused ${url}: ${why}`);
}

const HINT = ' (DOSSIER_WEB_ALLOW can let it through)';

/**
 * Checks a URL and resolves its host; throws DossierError 'blocked-address' naming the URL and why
 * when the scheme is not http(s), or when any address of the host is not public and not allowed.
 */
export async function vetUrl(input: string | URL, policy: AddressPolicy & { allowList?: AllowList } = {}): Promise<VettedTarget> {
  const shown = String(input).slice(0, 200);
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new DossierError('bad-input', `not a valid URL: ${shown}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw blocked(shown, `only http and https URLs are fetched, not ${url.protocol.replace(/:$/, '')}`);
  const allow = policy.allowList ?? new AllowList(policy.allow);
  // The WHATWG parser has already turned 2130706433, 0x7f.1 and 017700000001 into 127.0.0.1, and
  // [::ffff:127.0.0.1] into [::ffff:7f00:1]; what remains is a dotted IPv4, a bracketed IPv6 or a name.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const byName = allow.allowsName(host);
  let addresses: LookupAddress[];
  if (ipaddr.isValid(host) && (host.includes(':') || ipaddr.IPv4.isValidFourPartDecimal(host))) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  } else {
    if (!byName) {
      for (const [pattern, why] of REFUSED_NAMES)
        if (pattern.test(host.toLowerCase().replace(/\.$/, ''))) throw blocked(shown, `${host} is ${why}${HINT}`);
    }
    try {
      addresses = await (policy.lookup ?? (dnsLookup as LookupAll))(host, { all: true });
    } catch (error) {
      throw new DossierError(
        'remote-unreachable',
        `cannot resolve ${host} for ${shown}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    if (addresses.length === 0) throw new DossierError('remote-unreachable', `cannot resolve ${host} for ${shown}: no addresses`);
  }
  if (!byName) {
    // Every address must pass: a client may connect to any of them, and an attacker controls the order.
    for (const { address } of addresses) {
      const why = refusalReason(address);
      if (why && !(ipaddr.isValid(address) && allow.allowsAddress(address))) {
        const subject = address === host ? host : `${host} resolves to ${address}, which`;
        throw blocked(shown, `${subject} is ${why}${HINT}`);
      }
    }
  }
  return { url, host, addresses };
}

/**
 * A `lookup` for http.request / net.connect that answers only with the vetted addresses, whatever
 * DNS says now: the connection goes where the check looked.
 */
export function pinnedLookup(target: VettedTarget) {
  return (
    _hostname: string,
    options: { all?: boolean; family?: number | string } | number | undefined,
    callback: (...args: any[]) => void,
  ): void => {
    const all = typeof options === 'object' && options?.all;
    const wanted = typeof options === 'object' ? Number(options?.family ?? 0) : Number(options ?? 0);
    const usable = target.addresses.filter((a) => !wanted || a.family === wanted);
    const list = usable.length ? usable : target.addresses;
    if (all) callback(null, list);
    else callback(null, list[0].address, list[0].family);
  };
}
