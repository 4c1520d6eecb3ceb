// The real Chromium the HTML report tests open pages in, as scripts/test-browser.sh prepared it (npm test runs it
// first). Never a stand-in: a missing browser fails the suite, unless AGENTCTL_TEST_BROWSER=skip.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { ROOT } from './cli.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Where the report tests save their screenshots (gitignored): a CI job uploads the folder as an artifact. */
export const REPORT_ARTIFACTS = join(ROOT, 'test', 'artifacts', 'report');

export const browserSkipped = () => process.env.AGENTCTL_TEST_BROWSER === 'skip';

/** Chromium, headless and offline; throws when it is missing (run scripts/test-browser.sh). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/test-browser.sh (or set AGENTCTL_TEST_BROWSER=skip)`);
  // Root cannot use Chromium's sandbox without user namespaces set up for it.
  const sandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: [...sandbox, '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}

export interface OpenedPage {
  readonly page: Page;
  /** Every request the page made, as URLs (the file itself included). */
  readonly requests: string[];
  /** Requests other than the file itself: each was failed by the interception. */
  readonly refused: string[];
  /** Console messages of type error or warning, and page errors. */
  readonly problems: string[];
}

/**
 * Opens a local file with the network off: the page is offline, and request interception fails every request but
 * the file's own. What the page asked for and complained about is recorded.
 */
export async function openOffline(browser: Browser, file: string, width: number, height = 900): Promise<OpenedPage> {
  const page = await browser.newPage();
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  const refused: string[] = [];
  const problems: string[] = [];
  await page.setOfflineMode(true);
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    requests.push(request.url());
    if (request.url() === url) void request.continue();
    else {
      refused.push(request.url());
      void request.abort('blockedbyclient');
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${String(error)}`));
  page.on('requestfailed', (request) => {
    if (request.url() !== url) problems.push(`requestfailed: ${request.url()}`);
  });
  await page.setViewport({ width, height });
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, refused, problems };
}

/** Saves a full-page screenshot under REPORT_ARTIFACTS; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(REPORT_ARTIFACTS, { recursive: true });
  const path = join(REPORT_ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: path as `${string}.png`, fullPage: true });
  return path;
}
