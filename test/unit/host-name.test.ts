/**
 * The normal form host names are compared in (MCP_REJECTED_HOSTS): what makes two spellings the
 * same name, and what is not a host name at all.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.js';
import { normalHostName } from '../../shared/http/host-name.js';

describe('normalHostName', () => {
  it.each([
    ['proxy.example', 'proxy.example', 'already normal'],
    ['Proxy.EXAMPLE', 'proxy.example', 'case does not make another name'],
    ['proxy.example.', 'proxy.example', 'the trailing dot is the root label made explicit'],
    ['proxy.example.:443', 'proxy.example', 'a port and a trailing dot together'],
    ['PROXY.example:8443', 'proxy.example', 'any port'],
    ['  proxy.example  ', 'proxy.example', 'surrounding white space of a configured value'],
    ['proxy.example..', 'proxy.example.', 'only one trailing dot is the root label'],
    ['[::1]:443', '[::1]', 'an IPv6 literal keeps its brackets, loses its port'],
    ['127.0.0.1:80', '127.0.0.1', 'an IPv4 address'],
  ])('reads %s as %s (%s)', (input, expected) => {
    expect(normalHostName(input)).toBe(expected);
  });

  it.each([
    ['', 'empty'],
    ['1.2.3.256', 'a name ending in a number that is no IPv4 address: URL parsing refuses it'],
    ['user@proxy.example', 'user info'],
    ['proxy.example/path', 'a path'],
    ['proxy.example:70000', 'a port out of range'],
  ])('refuses %j (%s)', (input) => {
    expect(normalHostName(input)).toBeUndefined();
  });
});

describe('MCP_REJECTED_HOSTS', () => {
  it('holds each configured name in normal form', () => {
    const config = loadConfig({ MCP_REJECTED_HOSTS: 'Proxy.Example., other.example:443' });
    expect(config.MCP_REJECTED_HOSTS).toEqual(['proxy.example', 'other.example']);
  });

  it('fails start-up on a value that is not a host name, naming it', () => {
    expect(() => loadConfig({ MCP_REJECTED_HOSTS: 'proxy.example, user@other.example' })).toThrow(
      /MCP_REJECTED_HOSTS: "user@other.example" is not a host name/,
    );
  });
});
