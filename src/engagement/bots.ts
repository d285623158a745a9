// Crawlers, link-preview fetchers, monitors and command-line clients name themselves in their user
// agent; a request without one is a script too. None of them is a person looking at a credential.
const BOT_AGENT =
  /bot\b|bot\/|crawl|spider|slurp|archiver|facebookexternalhit|facebookcatalog|embedly|preview|vkshare|whatsapp|telegram|skypeuripreview|bitlyextension|outbrain|pinterest|quora link|headless|lighthouse|pingdom|uptime|monitor|curl\/|wget\/|httpie|python-requests|python-urllib|aiohttp|go-http-client|okhttp|java\/|libwww|scrapy|axios\/|node-fetch|undici/i;

/** Whether a request's user agent is a machine's: such requests are never counted. */
export function isBot(userAgent: string | undefined): boolean {
  return !userAgent || BOT_AGENT.test(userAgent);
}
