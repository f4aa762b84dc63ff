#!/usr/bin/env node
import { ConfigError, type McpConfig, parseConfig, USAGE } from './config.js';
import { createConfirmation } from './confirm.js';
import { createLogger, errorFields, type Logger } from './log.js';
import { startHttpServer } from './transports/http.js';
import { runStdio } from './transports/stdio.js';

async function serve(config: McpConfig, logger: Logger): Promise<() => Promise<void>> {
  const common = {
    baseUrl: config.baseUrl,
    selection: config.selection,
    maxResultBytes: config.maxResultBytes,
    confirmation: createConfirmation(config.confirm),
    logger,
  };
  if (config.transport === 'http') {
    const sharedApiKey = config.http.sharedKey ? config.apiKey : undefined;
    if (config.confirm.enabled && !config.confirm.secret)
      logger.warn('MCP_CONFIRM_SECRET is unset: a confirmation is answered only by this process');
    const running = await startHttpServer({ ...common, ...config.http, sharedApiKey, oauth: config.oauth });
    logger.info('serving MCP over Streamable HTTP', {
      url: running.url,
      baseUrl: config.baseUrl,
      oauthIssuer: config.oauth?.issuer,
    });
    process.stderr.write(`customer-api-mcp listening on ${running.url}\n`);
    return running.close;
  }
  const stdio = await runStdio({ ...common, apiKey: config.apiKey ?? '' });
  void stdio.closed.then(() => process.exit(0));
  return stdio.close;
}

async function main(): Promise<number> {
  let config: McpConfig | 'help';
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(
      `customer-api-mcp: ${error.message}\nRun customer-api-mcp --help for the options.\n`,
    );
    return 1;
  }
  if (config === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const logger = createLogger(config.logLevel);
  const close = await serve(config, logger);
  const stop = (signal: string) => {
    logger.info('shutting down', { signal });
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', errorFields(error));
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return 0;
}

process.exitCode = await main();
