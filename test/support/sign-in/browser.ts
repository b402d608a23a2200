// A browser enough for sign-in flows: a cookie jar per host, redirects followed by hand (each hop
// recorded), and the gateway's public origin (GATEWAY_PUBLIC_URL) mapped to the test server, so
// links and redirects the gateway makes for its public name reach it.

export interface Hop {
  url: string;
  status: number;
  location?: string;
}

export interface BrowserResponse {
  status: number;
  url: string;
  headers: Headers;
  text: string;
  json(): any;
  hops: Hop[];
}

export class Browser {
  /** host -> cookie name -> value */
  readonly jar = new Map<string, Map<string, string>>();

  constructor(private readonly origins: Record<string, string> = {}) {}

  cookie(host: string, name: string): string | undefined {
    return this.jar.get(host)?.get(name);
  }

  setCookie(host: string, name: string, value: string): void {
    if (!this.jar.has(host)) this.jar.set(host, new Map());
    this.jar.get(host)!.set(name, value);
  }

  /** One request, following redirects while `follow` says so (default: every redirect). */
  async fetch(
    url: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
    follow: (location: URL) => boolean = () => true,
  ): Promise<BrowserResponse> {
    const hops: Hop[] = [];
    let current = new URL(url);
    let method = init.method ?? 'GET';
    let body = init.body;
    let headers = { ...init.headers };
    for (let i = 0; i < 20; i++) {
      const res = await fetch(this.actual(current), {
        method,
        headers: { ...headers, ...this.cookieHeader(current.host) },
        body,
        redirect: 'manual',
      });
      this.store(current.host, res.headers.getSetCookie());
      const text = await res.text();
      const location = res.headers.get('location') ?? undefined;
      hops.push({ url: current.href, status: res.status, location });
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, current);
        if (follow(next)) {
          if (res.status !== 307 && res.status !== 308) {
            method = 'GET';
            body = undefined;
            headers = {};
          }
          current = next;
          continue;
        }
      }
      return {
        status: res.status,
        url: current.href,
        headers: res.headers,
        text,
        json: () => JSON.parse(text),
        hops,
      };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  private actual(url: URL): string {
    const mapped = this.origins[url.origin];
    return mapped ? mapped + url.pathname + url.search : url.href;
  }

  private cookieHeader(host: string): Record<string, string> {
    const cookies = this.jar.get(host);
    if (!cookies || cookies.size === 0) return {};
    return { cookie: [...cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('; ') };
  }

  private store(host: string, setCookies: string[]): void {
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = decodeURIComponent(pair!.slice(eq + 1).trim());
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (!this.jar.has(host)) this.jar.set(host, new Map());
      if (expired) this.jar.get(host)!.delete(name);
      else this.jar.get(host)!.set(name, value);
    }
  }
}
