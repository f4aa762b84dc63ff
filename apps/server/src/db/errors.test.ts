import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './errors.js';

describe('isDatabaseUnavailable', () => {
  it('holds for a connect that fails, whatever the reason the kernel gives', () => {
    // What Node reports for a connect over a route that drops everything (seen in deploy/ha).
    const err = Object.assign(new Error('connect EINVAL 127.77.0.21:5000 - Local (0.0.0.0:0)'), {
      code: 'EINVAL',
      errno: -22,
      syscall: 'connect',
    });
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: err }))).toBe(true);
    const notConnect = Object.assign(new Error('EINVAL'), { code: 'EINVAL', syscall: 'write' });
    expect(isDatabaseUnavailable(notConnect)).toBe(false);
  });

  it('holds for a node that stopped being primary (25006) and for lost hosts', () => {
    const readOnly = Object.assign(new Error('cannot execute INSERT in a read-only transaction'), {
      code: '25006',
    });
    expect(isDatabaseUnavailable(readOnly)).toBe(true);
    for (const code of ['EHOSTUNREACH', 'ENETUNREACH']) {
      expect(isDatabaseUnavailable(Object.assign(new Error(code), { code }))).toBe(true);
    }
  });

  it('holds for a Citus worker that cannot be reached', () => {
    // What a Citus coordinator answered while a worker was killed (seen in deploy/citus).
    const refused = Object.assign(
      new Error(
        'connection to the remote node postgres@127.0.0.1:5581 failed with the following error: Connection refused',
      ),
      { code: '08006' },
    );
    const essential = Object.assign(new Error('failure on connection marked as essential: 127.0.0.1:5581'), {
      code: 'XX000',
    });
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(isDatabaseUnavailable(essential)).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: essential }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('internal'), { code: 'XX000' }))).toBe(false);
  });

  it('does not hold for errors of the statement itself', () => {
    const unique = Object.assign(new Error('duplicate key'), { code: '23505' });
    expect(isDatabaseUnavailable(unique)).toBe(false);
    expect(isDatabaseUnavailable(new Error('Unexpected'))).toBe(false);
  });
});
