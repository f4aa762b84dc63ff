/** One sample of the Prometheus text format: metric name, labels and value. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?,?\\})? (\\S+)(?: -?\\d+)?$`);
const COMMENT = new RegExp(
  `^# (?:HELP ${NAME} .*|TYPE ${NAME} (?:counter|gauge|histogram|summary|untyped))$`,
);
const VALUE = /^(?:[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+)|[+-]?Inf|NaN)$/i;

/**
 * A strict reader of the text exposition format (version 0.0.4) for tests: every line must be
 * a HELP/TYPE comment or a well-formed sample, else it throws naming the line.
 */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || COMMENT.test(line)) continue;
    const match = SAMPLE.exec(line);
    const [, name = '', labelText = '', value = ''] = match ?? [];
    if (!match || !VALUE.test(value)) throw new Error(`Not Prometheus text format: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    for (const [, key = '', raw = ''] of labelText.matchAll(
      /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
    )) {
      labels[key] = raw.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name, labels, value: Number(value) });
  }
  return samples;
}
