import { translateDatabaseError } from './database-errors';

const coded = (code: string, extra: object = {}) => Object.assign(new Error('db said no'), { code }, extra);

describe('translateDatabaseError', () => {
  it('names a missing row, a unique violation and an unreachable database in the domain’s codes', () => {
    expect(translateDatabaseError(coded('P2025'))).toMatchObject({ code: 'not_found', message: 'Resource not found' });
    for (const code of ['P2002', '23505']) {
      expect(translateDatabaseError(coded(code))).toMatchObject({ code: 'conflict' });
    }
    for (const code of ['P1001', 'P1017', 'P2024']) {
      expect(translateDatabaseError(coded(code))).toMatchObject({ code: 'unavailable' });
    }
    expect(translateDatabaseError(new Error("Can't reach database server at 127.0.0.1:5432"))).toMatchObject({
      code: 'unavailable',
    });
    // Prisma wraps the driver's error: the cause chain is read too.
    expect(translateDatabaseError(new Error('query failed', { cause: coded('P1001') }))).toMatchObject({
      code: 'unavailable',
    });
  });

  it('leaves every other error to its caller', () => {
    expect(translateDatabaseError(coded('P2003'))).toBeNull();
    expect(translateDatabaseError(new Error('boom'))).toBeNull();
    expect(translateDatabaseError(null)).toBeNull();
  });
});
