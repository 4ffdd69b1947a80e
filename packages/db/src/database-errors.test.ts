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

  it('names every way the driver says the database timed out or is cut off `unavailable`', () => {
    // Prisma's codes: connect timed out, socket timed out (the adapter's ETIMEDOUT), too many connections.
    for (const code of ['P1002', 'P1008', 'P2037']) {
      expect(translateDatabaseError(coded(code))).toMatchObject({ code: 'unavailable' });
    }
    // SQLSTATEs of statements sent straight to pg: connection exceptions, shutdown, start-up, too many clients.
    for (const code of ['08006', '08001', '57P01', '57P03', '53300']) {
      expect(translateDatabaseError(coded(code))).toMatchObject({ code: 'unavailable' });
    }
    // What pg and pg-pool throw without a code (each seen against a forwarder that stopped forwarding).
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
      'Query read timeout',
    ]) {
      expect(translateDatabaseError(new Error(message))).toMatchObject({ code: 'unavailable' });
    }
    // The adapter's error for a PostgreSQL code Prisma has no name for keeps it in its cause.
    const adapterError = Object.assign(new Error('57P01'), {
      name: 'DriverAdapterError',
      cause: { kind: 'postgres', code: '57P01' },
    });
    expect(translateDatabaseError(adapterError)).toMatchObject({ code: 'unavailable' });
  });

  it('leaves every other error to its caller', () => {
    expect(translateDatabaseError(coded('P2003'))).toBeNull();
    // A statement's own timeout or a syntax error is a bug or a slow query, not an outage.
    expect(translateDatabaseError(coded('57014'))).toBeNull();
    expect(translateDatabaseError(coded('42601'))).toBeNull();
    expect(translateDatabaseError(new Error('the connection terminated the request'))).toBeNull();
    expect(translateDatabaseError(new Error('boom'))).toBeNull();
    expect(translateDatabaseError(null)).toBeNull();
  });
});
