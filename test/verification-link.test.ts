import { normalizeLinkHost, verificationLinkProblem } from '../src/certificates/verification-link.js';

const BASE = 'http://credentials.test';

describe('the verification link rule', () => {
  it('accepts this service’s own origin, even over http, and https on allowed hosts and their subdomains', () => {
    for (const link of ['http://credentials.test/verify/1', 'https://uni.example/c', 'https://certs.uni.example:8443/c?x=1']) {
      expect([link, verificationLinkProblem(link, BASE, ['uni.example'])]).toEqual([link, null]);
    }
  });

  it('refuses other hosts, look-alikes, plain http elsewhere, credentials and other ports of the own host', () => {
    const refused = [
      'https://evil.example/phish',
      'https://uni.example.evil.example/',
      'https://evil-uni.example/',
      'http://uni.example/c',
      'https://credentials.test@evil.example/',
      'http://user@credentials.test/verify/1',
      'http://credentials.test:8080/verify/1',
      'javascript:alert(1)',
    ];
    for (const link of refused) expect([link, verificationLinkProblem(link, BASE, ['uni.example'])]).toEqual([link, expect.any(String)]);
  });

  it('takes operator hosts as lowercase domain names only', () => {
    expect(['Uni.Example', 'xn--bcher-kva.example', 'bücher.example'].map(normalizeLinkHost)).toEqual([
      'uni.example',
      'xn--bcher-kva.example',
      'xn--bcher-kva.example',
    ]);
    expect(
      ['edu', 'uni.example/path', 'uni.example:443x', 'user@uni.example', 'https://uni.example', '10.0.0.1', '10.0.0.10', ''].map(normalizeLinkHost),
    ).toEqual(Array(8).fill(null));
  });
});
