import { type AppError } from '../errors';
import type { ParameterDefinition } from './manifest';
import { validateParams } from './params';

const defs: ParameterDefinition[] = [
  { name: 'query', type: 'string', required: true },
  { name: 'maxPrice', type: 'number', required: false },
  { name: 'pages', type: 'integer', required: false },
  { name: 'inStock', type: 'boolean', required: false },
];

function errorOf(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected an error');
}

describe('validateParams', () => {
  it('accepts well-typed params', () => {
    expect(() => validateParams(defs, { query: 'shoes', maxPrice: 9.5, pages: 2, inStock: true })).not.toThrow();
  });

  it('suggests the closest defined name by Levenshtein distance', () => {
    const err = errorOf(() => validateParams(defs, { qeury: 'shoes' }));
    expect(err.code).toBe('unknown_parameter');
    expect(err.message).toBe("Unknown parameter 'qeury'. Did you mean 'query'?");
    expect(err.details).toEqual({ parameter: 'qeury', suggestion: 'query' });
    expect(errorOf(() => validateParams(defs, { query: 'x', maxprice: 1 })).message).toBe(
      "Unknown parameter 'maxprice'. Did you mean 'maxPrice'?",
    );
  });

  it('has no suggestion when the bot defines no parameters', () => {
    const err = errorOf(() => validateParams([], { anything: 1 }));
    expect(err.message).toBe("Unknown parameter 'anything'.");
    expect(err.details).toEqual({ parameter: 'anything', suggestion: null });
  });

  it('reports missing required and wrongly typed params', () => {
    const err = errorOf(() => validateParams(defs, { maxPrice: '9', pages: 1.5, inStock: 'yes' }));
    expect(err.code).toBe('invalid_parameter');
    expect(err.details).toEqual([
      { path: 'params.query', message: 'is required' },
      { path: 'params.maxPrice', message: 'must be of type number' },
      { path: 'params.pages', message: 'must be of type integer' },
      { path: 'params.inStock', message: 'must be of type boolean' },
    ]);
  });
});
