#!/usr/bin/env node
// Runs the receiver: WEBHOOK_SECRET=whsec_… PORT=4000 node dist/main.js
import { startReceiver } from './receiver.js';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  process.stderr.write('Set WEBHOOK_SECRET to the signingSecret of your webhook subscription.\n');
  process.exit(1);
}
const receiver = await startReceiver({
  secret,
  port: Number(process.env.PORT ?? 4000),
  onEvent: (delivery) => {
    process.stdout.write(
      `${delivery.eventId} ${delivery.payload.type} ${JSON.stringify(delivery.payload)}\n`,
    );
  },
});
process.stderr.write(`Receiving webhooks on ${receiver.url}\n`);
process.once('SIGINT', () => void receiver.close());
process.once('SIGTERM', () => void receiver.close());
