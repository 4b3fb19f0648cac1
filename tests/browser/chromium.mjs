// Headless Debian Chromium for the viewer's tests, benchmark and demo screenshots, driven by
// playwright-core (this folder's package-lock.json). The flags keep it off the network: on this
// machine kind, background connections are refused and name lookups of Google's hosts fail.
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.XTFQ_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}
