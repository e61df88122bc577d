/**
 * A console client over `app.request()` for the HTTP-level console tests: it keeps the cookies the
 * console sets, reads the CSRF token of the last page, and posts forms from a chosen origin and
 * client address (the throttle counts by address; `app.request()` has none of its own).
 */
import type { Hono } from 'hono';

export interface ConsoleRequestOptions {
  /** The `Origin` header of a POST; the console's own by default, `null` sends none. */
  origin?: string | null;
  headers?: Record<string, string>;
}

export class ConsoleClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page read. */
  token: string | undefined;

  constructor(
    private readonly app: Pick<Hono, 'request'>,
    readonly ownOrigin: string,
    readonly address = '198.51.100.7',
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    const response = await this.app.request(`${this.ownOrigin}${path}`, init, {
      incoming: { socket: { remoteAddress: this.address } },
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (/Max-Age=0/.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  async get(path: string): Promise<{ response: Response; html: string }> {
    const response = await this.send(path, { headers: { cookie: this.cookieHeader() } });
    const html = await response.text();
    this.token = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? this.token;
    return { response, html };
  }

  async post(
    path: string,
    fields: Record<string, string | readonly string[]>,
    options: ConsoleRequestOptions = {},
  ): Promise<{ response: Response; html: string }> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries({ csrf: this.token ?? '', ...fields }))
      for (const each of typeof value === 'string' ? [value] : value) body.append(name, each);
    const origin = options.origin === undefined ? this.ownOrigin : options.origin;
    const response = await this.send(path, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: this.cookieHeader(),
        ...(origin === null ? {} : { origin }),
        ...options.headers,
      },
    });
    const html = await response.text();
    this.token = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? this.token;
    return { response, html };
  }

  /** Opens the sign-in page and signs in with the key; the session cookie is kept. */
  async signIn(apiKey: string): Promise<Response> {
    await this.get('/console/sign-in');
    const { response } = await this.post('/console/sign-in', { apiKey });
    if (response.status === 303) await this.get('/console');
    return response;
  }
}
