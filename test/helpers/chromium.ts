import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

// Debian's chromium driven by playwright-core (DESIGN.md section 6). A missing browser fails the
// test loudly: `.ci/run` installs the chromium package.

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`chromium not found at ${CHROMIUM_PATH}: install the Debian packages chromium and chromium-driver (.ci/run does this)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
