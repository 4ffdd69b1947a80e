import { preparedStatement } from './prepared-statement';
import { createStatementNamer, statementName } from './statement-names';

describe('createStatementNamer', () => {
  it('gives a text the same name every time, and other texts other names', () => {
    const name = createStatementNamer();
    const first = name({ sql: 'SELECT 1' });
    expect(first).toMatch(/^bf_[0-9a-f]{40}$/);
    expect(name({ sql: 'SELECT 1' })).toBe(first);
    expect(name({ sql: 'SELECT 2' })).not.toBe(first);
    // Names are identifiers PostgreSQL keeps whole (at most 63 bytes).
    expect(first.length).toBeLessThanOrEqual(63);
  });

  it('leaves texts past the limit unnamed, but keeps naming the ones it knows', () => {
    const name = createStatementNamer(2);
    const a = name({ sql: 'a' });
    name({ sql: 'b' });
    expect(name({ sql: 'c' })).toBe('');
    expect(name({ sql: 'a' })).toBe(a);
  });
});

describe('statementName', () => {
  it('is the one scheme: Prisma’s queries and the hot statements name a text alike', () => {
    expect(preparedStatement('SELECT 1').name).toBe(statementName('SELECT 1'));
    expect(createStatementNamer()({ sql: 'SELECT 1' })).toBe(statementName('SELECT 1'));
  });
});
