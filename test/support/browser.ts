import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

/** Debian's chromium package; CI installs it (see .ci/run). */
export const CHROMIUM = '/usr/bin/chromium';

const ARTIFACTS = join(process.cwd(), 'test-artifacts');

export const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 900 } },
  mobile: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
} satisfies Record<string, BrowserContextOptions>;

export type ViewportName = keyof typeof VIEWPORTS;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A port nobody listens on right now, so the service can be started with PUBLIC_BASE_URL at its own
 * address and every link on its pages leads back to it.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A page in a fresh context, with what went wrong in it collected: console errors (CSP violations included), page errors, dialogs. */
export interface WatchedPage {
  page: Page;
  consoleErrors: string[];
  dialogs: string[];
  close(): Promise<void>;
}

export async function watchedPage(browser: Browser, options: BrowserContextOptions = {}): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  // Nothing leaves the machine: only the service under test answers.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return { page, consoleErrors, dialogs, close: () => context.close() };
}

/**
 * Every axe-core finding on the page, whatever its impact (minor ones too). A page without frames is
 * checked by one axe.run in the page itself (AxeBuilder's legacy mode): the same rules and results,
 * without the blank page its default mode opens, and injects axe into again, to merge the results of
 * frames (that cost most of a check's CPU). A page with frames still gets the default mode.
 */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  const results = await new AxeBuilder({ page }).setLegacyMode(page.frames().length === 1).analyze();
  return results.violations.map((violation) => ({ id: violation.id, impact: violation.impact ?? 'unknown', nodes: violation.nodes.map((node) => node.html) }));
}

/**
 * A full-page screenshot under test-artifacts/ (git-ignored), for a person to look at: one image pixel
 * per CSS pixel, so a 2× mobile page is not encoded at four times the pixels.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true, scale: 'css' });
  return path;
}
