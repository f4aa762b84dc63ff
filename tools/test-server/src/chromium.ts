/** Debian's `chromium` package, which the browser tests drive; `.ci/run` installs it when missing. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for headless Chromium on this machine: without the background-networking ones it keeps
 * trying hosts the closed network refuses.
 */
export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
