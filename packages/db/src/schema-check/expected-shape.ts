import type { DbShape, ForeignKeyShape, ReferentialAction, TableShape } from './db-shape';
import { pgTypeName } from './db-shape';
import type { DmmfDatamodel, DmmfDefault, DmmfField, DmmfModel } from './prisma-dmmf';

/**
 * What `prisma migrate dev` would create for a datamodel on PostgreSQL: Prisma's type mapping,
 * default rendering and constraint naming. Anything this does not know how to map throws, so a
 * schema change the check cannot follow fails the test instead of being skipped silently.
 */
export function expectedShape(datamodel: DmmfDatamodel): DbShape {
  const enums: Record<string, string[]> = {};
  for (const enm of datamodel.enums) {
    enums[enm.dbName ?? enm.name] = enm.values.map((value) => value.dbName ?? value.name);
  }
  const models = new Map(datamodel.models.map((model) => [model.name, model]));
  const enumDbNames = new Map(datamodel.enums.map((enm) => [enm.name, enm.dbName ?? enm.name]));

  const tables: Record<string, TableShape> = {};
  for (const model of datamodel.models) {
    tables[tableName(model)] = {
      columns: Object.fromEntries(
        scalarFields(model).map((field) => [columnName(field), columnShape(model, field, enumDbNames)]),
      ),
      primaryKey: null,
      uniqueIndexes: {},
      indexes: {},
      foreignKeys: foreignKeys(model, models),
    };
  }

  for (const index of datamodel.indexes) {
    const model = mustGet(models, index.model);
    const table = pick(tables, tableName(model));
    const fields = index.fields.map((f) => columnName(mustFind(model, f.name)));
    const columns = index.fields.map((f, i) => `${fields[i]}${f.sortOrder === 'desc' ? ' DESC' : ''}`);
    switch (index.type) {
      case 'id':
        table.primaryKey = { name: index.dbName ?? constraintName(tableName(model), [], 'pkey'), columns };
        break;
      case 'unique':
        table.uniqueIndexes[index.dbName ?? constraintName(tableName(model), fields, 'key')] = columns;
        break;
      case 'normal':
        table.indexes[index.dbName ?? constraintName(tableName(model), fields, 'idx')] = columns;
        break;
      default:
        throw new Error(`Index type ${index.type} on ${index.model} is not supported by the schema check`);
    }
  }
  return { enums, tables };
}

function tableName(model: DmmfModel): string {
  return model.dbName ?? model.name;
}

function columnName(field: DmmfField): string {
  return field.dbName ?? field.name;
}

function scalarFields(model: DmmfModel): DmmfField[] {
  return model.fields.filter((field) => field.kind === 'scalar' || field.kind === 'enum');
}

function mustFind(model: DmmfModel, fieldName: string): DmmfField {
  const field = model.fields.find((f) => f.name === fieldName);
  if (field === undefined) throw new Error(`${model.name}.${fieldName} not found`);
  return field;
}

function mustGet<T>(map: Map<string, T>, key: string): T {
  const value = map.get(key);
  if (value === undefined) throw new Error(`${key} not found`);
  return value;
}

function pick<T>(record: Record<string, T>, key: string): T {
  const value = record[key];
  if (value === undefined) throw new Error(`${key} not found`);
  return value;
}

/** Prisma's default names: table, then columns, then a suffix, joined by `_`. */
function constraintName(table: string, columns: string[], suffix: 'pkey' | 'key' | 'idx' | 'fkey'): string {
  const name = [table, ...columns, suffix].join('_');
  // Prisma shortens names past PostgreSQL's 63-byte limit; the check does not model that.
  if (Buffer.byteLength(name) > 63) throw new Error(`Default name ${name} is too long for the schema check`);
  return name;
}

function columnShape(model: DmmfModel, field: DmmfField, enumDbNames: Map<string, string>) {
  const base = field.kind === 'enum' ? pgTypeName(mustGet(enumDbNames, field.type)) : scalarType(model, field);
  return {
    type: field.isList ? `${base}[]` : base,
    // Prisma never marks list columns NOT NULL.
    nullable: field.isList || !field.isRequired,
    default: defaultExpression(model, field, base),
  };
}

function scalarType(model: DmmfModel, field: DmmfField): string {
  const where = `${model.name}.${field.name}`;
  if (field.nativeType) {
    const [name, args] = field.nativeType;
    if (name === 'Timestamptz') return `timestamp(${args[0] ?? '6'}) with time zone`;
    if (name === 'Timestamp') return `timestamp(${args[0] ?? '6'}) without time zone`;
    throw new Error(`Native type @db.${name} on ${where} is not supported by the schema check`);
  }
  switch (field.type) {
    case 'String':
      return 'text';
    case 'Int':
      return 'integer';
    case 'BigInt':
      return 'bigint';
    case 'Boolean':
      return 'boolean';
    case 'Float':
      return 'double precision';
    case 'Decimal':
      return 'numeric(65,30)';
    case 'DateTime':
      return 'timestamp(3) without time zone';
    case 'Json':
      return 'jsonb';
    case 'Bytes':
      return 'bytea';
    default:
      throw new Error(`Type ${field.type} on ${where} is not supported by the schema check`);
  }
}

/** The default as pg_get_expr() prints what Prisma's migration SQL declares. */
function defaultExpression(model: DmmfModel, field: DmmfField, baseType: string): string | null {
  // @updatedAt is set by the client, not the database.
  if (!field.hasDefaultValue || field.default === undefined) return null;
  const value: DmmfDefault = field.default;
  const where = `${model.name}.${field.name}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return `ARRAY[]::${baseType}[]`;
    throw new Error(`Non-empty list default on ${where} is not supported by the schema check`);
  }
  if (typeof value === 'object') {
    if (value.name === 'now') return 'CURRENT_TIMESTAMP';
    if (value.name === 'autoincrement')
      return `nextval('${pgTypeName(`${tableName(model)}_${columnName(field)}_seq`)}'::regclass)`;
    throw new Error(`Default ${value.name}() on ${where} is not supported by the schema check`);
  }
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  const literal = `'${value.replace(/'/g, "''")}'`;
  return `${literal}::${baseType}`;
}

const ACTIONS: Record<string, ReferentialAction> = {
  Cascade: 'CASCADE',
  Restrict: 'RESTRICT',
  NoAction: 'NO ACTION',
  SetNull: 'SET NULL',
  SetDefault: 'SET DEFAULT',
};

// A relation's `map:` (custom foreign key name) is not in the DMMF, so default names are assumed;
// a mapped name would show up as a mismatch rather than pass unnoticed.
function foreignKeys(model: DmmfModel, models: Map<string, DmmfModel>): Record<string, ForeignKeyShape> {
  const result: Record<string, ForeignKeyShape> = {};
  for (const field of model.fields) {
    const from = field.relationFromFields ?? [];
    if (field.kind !== 'object' || from.length === 0) continue;
    const target = mustGet(models, field.type);
    const columns = from.map((name) => columnName(mustFind(model, name)));
    // Prisma's defaults when the schema names no action: Restrict for a required relation,
    // SetNull for an optional one; updates cascade.
    const onDelete = field.relationOnDelete ?? (field.isRequired ? 'Restrict' : 'SetNull');
    const onUpdate = field.relationOnUpdate ?? 'Cascade';
    result[constraintName(tableName(model), columns, 'fkey')] = {
      columns,
      referencedTable: tableName(target),
      referencedColumns: (field.relationToFields ?? []).map((name) => columnName(mustFind(target, name))),
      onDelete: pick(ACTIONS, onDelete),
      onUpdate: pick(ACTIONS, onUpdate),
    };
  }
  return result;
}
