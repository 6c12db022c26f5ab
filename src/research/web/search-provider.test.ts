import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configFromEnv } from '../../config/index.ts';
import {
  braveProvider,
  plainText,
  searxngProvider,
  serperProvider,
  tavilyProvider,
  webSearchProviderFromSettings,
} from './search-provider.ts';
import { BRAVE_PROTOCOL, SEARXNG_PROTOCOL, SERPER_PROTOCOL, TAVILY_PROTOCOL, webSearchContract } from './web-search-contract.ts';

// Every provider runs the one contract, each against a local server speaking its real protocol.
webSearchContract('searxng', SEARXNG_PROTOCOL, (baseUrl) => searxngProvider({ baseUrl }));
webSearchContract('tavily', TAVILY_PROTOCOL, (baseUrl, apiKey) => tavilyProvider({ baseUrl, apiKey }));
webSearchContract('brave', BRAVE_PROTOCOL, (baseUrl, apiKey) => braveProvider({ baseUrl, apiKey }));
webSearchContract('serper', SERPER_PROTOCOL, (baseUrl, apiKey) => serperProvider({ baseUrl, apiKey }));

describe('choosing the provider from the environment', () => {
  const pick = (env: Record<string, string>) => webSearchProviderFromSettings(configFromEnv(env).web);

  it('is off by default, with an error saying what to set', () => {
    assert.throws(
      () => pick({}),
      (error: Error & { code?: string }) => error.code === 'config' && /^web search is off: set DOSSIER_WEB_SEARCH/.test(error.message),
    );
  });

  it('names the missing key or URL, and refuses unknown providers', () => {
    assert.throws(() => pick({ DOSSIER_WEB_SEARCH: 'tavily' }), /TAVILY_API_KEY/);
    assert.throws(() => pick({ DOSSIER_WEB_SEARCH: 'brave' }), /BRAVE_API_KEY/);
    assert.throws(() => pick({ DOSSIER_WEB_SEARCH: 'serper' }), /SERPER_API_KEY/);
    assert.throws(() => pick({ DOSSIER_WEB_SEARCH: 'searxng' }), /DOSSIER_SEARXNG_URL/);
    assert.throws(() => pick({ DOSSIER_WEB_SEARCH: 'bing' }), /must be searxng, tavily, brave, serper or off, got "bing"/);
  });

  it('builds the chosen one', () => {
    assert.equal(pick({ DOSSIER_WEB_SEARCH: 'searxng', DOSSIER_SEARXNG_URL: 'http://127.0.0.1:8080' }).id, 'searxng');
    assert.equal(pick({ DOSSIER_WEB_SEARCH: 'Tavily', TAVILY_API_KEY: 'k' }).id, 'tavily');
    assert.equal(pick({ DOSSIER_WEB_SEARCH: 'brave', BRAVE_API_KEY: 'k' }).id, 'brave');
    assert.equal(pick({ DOSSIER_WEB_SEARCH: 'serper', SERPER_API_KEY: 'k' }).id, 'serper');
  });
});

describe('plainText', () => {
  it('drops markup and decodes entities', () => {
    assert.equal(plainText('The <strong>falcon</strong> &amp; the &quot;cliff&quot; &#39;s&#x21;  '), 'The falcon & the "cliff" \'s!');
    assert.equal(plainText(undefined), '');
  });
});
